// The compute-stream bound prices every kernel as the replay does: on each
// rank and stream, the bound's sum equals the replay's kernel durations.
#include "sim/exec/compute_bound.hpp"

#include <algorithm>
#include <catch2/catch.hpp>

#include "sim/exec/executor.hpp"
#include "sim/exec/program_shape.hpp"
#include "sim/scenario/scenario.hpp"

using namespace simctl;

TEST_CASE("the compute-stream bound is the replay's busiest stream of kernels", "[exec][bound]") {
  // A pipeline with a straggler: kernels of many shapes, kinds and speeds.
  const std::string config = GENERATE(as<std::string>{}, "tests/sensitivity/configs/tp_pp_8gpu.yaml",
                                      "configs/dgx_h100x4_gpt6p7b_tp8_pp4.yaml", "configs/dgx_h100_x8_straggler.yaml");
  CAPTURE(config);
  const Scenario s = load_scenario(std::string(SIMCTL_SOURCE_DIR) + "/" + config);
  Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  const ExecutionResult result = executor.run();
  TimePs busiest = 0;
  for (std::uint32_t r = 0; r < s.trace.rank_count(); ++r) {
    std::array<TimePs, kStreamCount> sums{};
    const auto& ops = s.trace.ops(r);
    for (OpIndex i = 0; i < ops.size(); ++i) {
      if (!std::holds_alternative<ComputeWork>(ops[i].work)) continue;
      const OpTiming& t = result.timeline(r).ops[i];
      sums[stream_index(ops[i].stream)] += t.end - t.start;
    }
    busiest = std::max(busiest, *std::max_element(sums.begin(), sums.end()));
  }
  CHECK(compute_stream_bound(s.trace, s.system, s.catalogue) == busiest);
}
