// NCCL's Tree across nodes: pipelined in NCCL's tree chunks, and capped at
// what NCCL's tree channels carry (collective_tuning.yaml, tree).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective_plans.hpp"
#include "models/network/nccl_test.hpp"
#include "models/network/pipelined_run.hpp"
#include "models/network/rail_router.hpp"
#include "models/network/system_collective_topology.hpp"
#include "sim/config/data_root.hpp"
#include "tests/network/shipped_systems.hpp"

using namespace simctl;
using simctl::test::system_named;

namespace {

double tree_busbw(const System& system, const CollectiveTuning& tuning, int gpus, double bytes) {
  const CollectivePoint point{CollectiveOp::all_reduce, gpus, bytes, CollectiveAlgorithm::tree};
  return simulate_collective(system, tuning, point).busbw_bytes_per_s;
}

// Runs one tree all-reduce's plan on an idle system: chunk by chunk, or as
// one chunk's pattern pipelined over `chunks`.
TimePs run_tree(const System& system, const PlanInputs& in, bool pipelined) {
  Engine engine;
  FlowNetwork network(engine, system.link_capacities());
  const std::optional<CollectiveTopology> topology = *in.topology;
  const RailRouter router(system, topology);
  const TransferContext context{engine, network, router};
  TimePs done = 0;
  if (pipelined) {
    run_pipelined(context, plan_tree_chunk(in), tree_chunks(in), [&] { done = engine.now(); });
  } else {
    run_transfers(context, plan_tree(in), [&] { done = engine.now(); });
  }
  engine.run();
  return done;
}

}  // namespace

TEST_CASE("NCCL's tree channels cap Tree across B200 nodes at 8 x its per-channel figure",
          "[network][collective][tree]") {
  const System& system = system_named("dgx_b200_x64_ndr.yaml");
  const CollectiveTuning tuning = CollectiveTuning::load();
  const double bytes = 8.0 * kGiB;
  // NCCL's perChMaxTreeBws for Blackwell: 42.8 GB/s on two nodes, 24.0 from three.
  CHECK(tree_busbw(system, tuning, 16, bytes) / 1e9 == Approx(8 * 42.8).epsilon(0.03));
  const double four = tree_busbw(system, tuning, 32, bytes);
  CHECK(four / 1e9 == Approx(8 * 24.0).epsilon(0.03));
  CHECK(tree_busbw(system, tuning, 128, bytes) == Approx(four).epsilon(0.03));

  // Without the cap the trees run at their NICs' rate: 1.6 times as fast.
  CollectiveTuning uncapped = tuning;
  uncapped.tree_channel_rate_by_architecture.clear();
  CHECK(tree_busbw(system, uncapped, 32, bytes) > 1.5 * four);
  // Inside one node nothing is capped.
  CHECK(tree_busbw(system, uncapped, 8, bytes) == Approx(tree_busbw(system, tuning, 8, bytes)));
}

// The two differ by about one chunk's trip: 67 us less pipelined on 2 and 4
// H100 nodes, where the first chunk does not queue behind the next ones
// (2% at 512 MiB, 128 chunks a tree).
TEST_CASE("the pipelined tree across nodes agrees with its chunk-by-chunk plan", "[network][collective][tree]") {
  const System& system = system_named("dgx_h100_x16_ndr.yaml");
  CollectiveTuning tuning = CollectiveTuning::load();
  // Chunk by chunk in the same chunks as the pipelined pattern.
  tuning.chunk_bytes = tuning.tree_chunk_bytes;
  tuning.max_chunks_per_step = 1 << 20;
  const CollectiveTopology topology = describe_collective_topology(system);
  for (int nodes : {2, 4}) {
    for (double bytes : {1.0 * kGiB, 2.0 * kGiB}) {
      std::vector<EndpointId> members(system.gpus().begin(), system.gpus().begin() + 8 * nodes);
      const CollectiveRequest request{CollectiveOp::all_reduce, members, bytes, CollectiveAlgorithm::tree};
      const PlanInputs in{request, tuning, tuning.protocol(Protocol::simple, {}), &topology};
      REQUIRE(tree_chunks(in) >= 64);
      const TimePs chunked = run_tree(system, in, false);
      const TimePs pipelined = run_tree(system, in, true);
      INFO(nodes << " nodes, " << bytes / kMiB << " MiB: " << ps_to_seconds(chunked) * 1e6 << " us chunk by chunk, "
                 << ps_to_seconds(pipelined) * 1e6 << " us pipelined");
      CHECK(pipelined == Approx(chunked).epsilon(0.02));
    }
  }
}

TEST_CASE("a tree channel rate without both node counts, or a zero tree chunk, names the file, line and field",
          "[network][collective][tree][bad_input]") {
  std::ifstream shipped(data_root() + "/models/network/collective_tuning.yaml");
  std::stringstream text;
  text << shipped.rdbuf();
  const std::string original = text.str();
  const auto path = std::filesystem::temp_directory_path() / ("tree_tuning_" + std::to_string(::getpid()) + ".yaml");
  auto load_with = [&](const std::string& from, const std::string& to) {
    std::string edited = original;
    const auto at = edited.find(from);
    REQUIRE(at != std::string::npos);
    edited.replace(at, from.size(), to);
    std::ofstream(path) << edited;
    return [&] { CollectiveTuning::load(path.string()); };
  };
  const auto missing =
      load_with("blackwell: {two_nodes: 42.8 GB/s, more_nodes: 24.0 GB/s}", "blackwell: {two_nodes: 42.8 GB/s}");
  // "<file>:<line>:<column>: error: field 'tree.channel_rate_by_architecture.blackwell': missing required field
  // 'more_nodes'"
  CHECK_THROWS_WITH(missing(), Catch::Contains(path.filename().string() + ":") &&
                                   Catch::Contains("tree.channel_rate_by_architecture.blackwell") &&
                                   Catch::Contains("more_nodes"));
  const auto zero = load_with("chunk_size: 512 KiB", "chunk_size: 0 B");
  CHECK_THROWS_WITH(zero(), Catch::Contains("chunk_size") && Catch::Contains("must be positive"));
  std::filesystem::remove(path);
}

TEST_CASE("per-generation figures are keyed by the catalogue's architecture, so every part of one gets them",
          "[network][collective][tree]") {
  const CollectiveTuning tuning = CollectiveTuning::load();
  // Every key is an architecture of the catalogue: a misspelt one would cap nothing.
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  std::set<std::string> architectures;
  for (const std::string& id : catalogue.gpu_ids()) architectures.insert(catalogue.find_gpu(id)->architecture);
  for (const auto& [architecture, rate] : tuning.tree_channel_rate_by_architecture) {
    INFO(architecture);
    CHECK(architectures.count(architecture) == 1);
  }
  for (const auto& [architecture, rate] : tuning.cta_bytes_per_s_by_architecture) {
    INFO(architecture);
    CHECK(architectures.count(architecture) == 1);
  }
  // A GH200 (Hopper, its own catalogue id) takes Hopper's row. One GPU per
  // node: one tree channel, at most 36.0 GB/s from three nodes, under the
  // 39.5 GB/s its NIC would carry on 48 nodes.
  const System& gh200 = system_named("gh200_x48_ndr.yaml");
  const double capped = tree_busbw(gh200, tuning, 48, 1.0 * kGiB);
  CHECK(capped / 1e9 == Approx(36.0).epsilon(0.03));
  CollectiveTuning uncapped = tuning;
  uncapped.tree_channel_rate_by_architecture.erase("hopper");
  CHECK(tree_busbw(gh200, uncapped, 48, 1.0 * kGiB) > 1.05 * capped);
}
