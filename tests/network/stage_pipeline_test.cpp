// Pieces through stages, one piece per stage at a time: the flow-shop
// makespan, and SHARP's phases overlapping because of it.
#include "models/network/stage_pipeline.hpp"

#include <catch2/catch.hpp>

#include "models/network/nccl_test.hpp"
#include "sim/core/engine.hpp"
#include "tests/network/shipped_systems.hpp"

using namespace simctl;

TEST_CASE("identical pieces finish after every stage once plus the slowest stage per further piece",
          "[network][collective][sharp]") {
  Engine engine;
  const std::vector<TimePs> stage_time{3, 10, 4};
  const int pieces = 5;
  std::vector<std::vector<StageWork>> work(stage_time.size());
  std::vector<std::vector<TimePs>> started(stage_time.size());
  for (std::size_t s = 0; s < stage_time.size(); ++s) {
    for (int k = 0; k < pieces; ++k) {
      work[s].push_back([&, s](std::function<void()> done) {
        started[s].push_back(engine.now());
        engine.schedule_after(stage_time[s], std::move(done));
      });
    }
  }
  TimePs finished = -1;
  run_stage_pipeline(std::move(work), [&] { finished = engine.now(); });
  engine.run();
  CHECK(finished == 3 + 10 + 4 + (pieces - 1) * 10);
  // The slow middle stage takes a piece as soon as it is free, never two at once.
  REQUIRE(started[1].size() == pieces);
  for (int k = 1; k < pieces; ++k) CHECK(started[1][k] - started[1][k - 1] == 10);
  CHECK_THROWS(run_stage_pipeline({}, [] {}));
}

TEST_CASE("SHARP's in-node phases hide under its in-network one", "[network][collective][sharp]") {
  const System& system = simctl::test::system_named("dgx_b200_x64_ndr.yaml");
  const CollectiveTuning tuning = CollectiveTuning::load();
  const double bytes = 8.0 * 1024 * 1024 * 1024;
  const CollectivePoint point{CollectiveOp::all_reduce, 32,  bytes, CollectiveAlgorithm::sharp,
                              Protocol::automatic,      true};
  const double seconds = ps_to_seconds(simulate_collective(system, tuning, point).time);
  // The in-network phase alone: each GPU's eighth through its NIC, up and
  // down at once, at NCCL's CollNet share of the NDR port's copy rate.
  const double nic = 400e9 / 8 * 0.968 * tuning.sharp.efficiency;
  const double across = bytes / 8 / nic;
  // One after another, the two NVLink phases nearly doubled it (B200, 4 nodes: 1.83 times).
  CHECK(seconds < 1.15 * across);
  CHECK(seconds > across);
}
