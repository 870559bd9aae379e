// Uneven pipeline splits (`parallel.stage_layers`, workloads/layer_split.hpp):
// which blocks each chunk holds, that the simulated step follows the
// heaviest stage, that each stage's memory counts its own blocks, and the
// lists refused.
#include "workloads/layer_split.hpp"

#include <catch2/catch.hpp>

#include "config_rejection.hpp"
#include "plan_run.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/stage_layout.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace layer_split_test_detail {

// Llama 2 7B (32 blocks) over 4 stages on one DGX H100: TP 2, PP 4.
const std::string kPlan =
    "  model: llama2-7b\n  micro_batch: 1\n  global_batch: 32\n  strategy: zero1\n  activation_recompute: full\n";

std::string run_text(const std::string& parallel) {
  return "name: uneven pipeline\nsystem: " + config_path("configs/systems/dgx_h100.yaml") + "\nworkload:\n" + kPlan +
         "  parallel: " + parallel + "\n";
}

std::string write_split_config(const std::string& name, const std::string& parallel) {
  return write_test_config("simctl_layer_split", name, run_text(parallel));
}

Scenario split_scenario(const std::string& name, const std::string& parallel) {
  return load_scenario(write_split_config(name, parallel));
}

}  // namespace layer_split_test_detail

using namespace layer_split_test_detail;

TEST_CASE("stage_layers gives each virtual stage its own blocks in order", "[workloads][pipeline]") {
  const Scenario s = split_scenario("interleaved",
                                    "{data: 1, tensor: 2, pipeline: 4, schedule: interleaved, virtual_stages: 2, "
                                    "stage_layers: [3, 4, 4, 5, 5, 4, 4, 3]}");
  const WorkloadSpec& spec = s.workload;
  CHECK(chunk_first_block(spec, 0) == 0);
  CHECK(chunk_first_block(spec, 3) == 11);
  CHECK(chunk_first_block(spec, 7) == 29);
  CHECK(stage_block_count(spec, 0) == 3 + 5);
  CHECK(stage_block_count(spec, 3) == 5 + 3);
  CHECK(max_chunk_blocks(spec) == 5);
  const StageChunk first = stage_chunk(spec, 0, 0);
  CHECK(first.layers == 3);
  CHECK(first.units.front().name == "embedding");
  CHECK(first.units.back().name == "layer2");
  const StageChunk last = stage_chunk(spec, 3, 1);  // virtual stage 7
  CHECK(last.layers == 3);
  CHECK(last.units.front().name == "layer29");
  CHECK(last.units.back().name == "head");
  const StageChunk middle = stage_chunk(spec, 1, 1);  // virtual stage 5
  CHECK(middle.units.front().name == "layer21");
  CHECK(middle.units.size() == 4);
}

TEST_CASE("an uneven split is timed by its heaviest stage and holds each stage's own blocks",
          "[workloads][pipeline][memory]") {
  const PlanRun even = run_scenario(split_scenario("even", "{data: 2, tensor: 1, pipeline: 4}"));
  const PlanRun listed_even =
      run_scenario(split_scenario("listed", "{data: 2, tensor: 1, pipeline: 4, stage_layers: [8, 8, 8, 8]}"));
  const PlanRun heavy =
      run_scenario(split_scenario("heavy", "{data: 2, tensor: 1, pipeline: 4, stage_layers: [8, 11, 7, 6]}"));
  CHECK(listed_even.result.step_time == even.result.step_time);
  // `[]` is the even split, as a plan search writes it.
  const PlanRun empty = run_scenario(split_scenario("empty", "{data: 2, tensor: 1, pipeline: 4, stage_layers: []}"));
  CHECK(empty.scenario.workload.parallel.stage_layers.empty());
  CHECK(empty.result.step_time == even.result.step_time);
  // 16 micro-batches in 1F1B: the fill and drain pass every stage once and
  // the steady state repeats the slowest. Even, that is stage 3 (8 blocks and
  // the LM head, about 9 blocks' time); heavy, stage 1's 11: about
  // (33 + 15 * 11) / (33 + 15 * 9) = 1.18 times the even step.
  CHECK(heavy.step_s() > 1.1 * even.step_s());
  CHECK(heavy.step_s() < 1.3 * even.step_s());
  const auto rows = estimate_memory(heavy.scenario.workload);
  const auto even_rows = estimate_memory(even.scenario.workload);
  const auto weights = [](const StageMemory& row) {
    for (const auto& use : row.items)
      if (use.name == "weights") return use.bytes;
    return -1.0;
  };
  CHECK(weights(rows[1]) > weights(even_rows[1]) * 1.3);
  CHECK(weights(rows[3]) < weights(even_rows[3]));
}

TEST_CASE("stage_layers lists that cannot split the model are refused with the field", "[workloads][errors]") {
  const auto refused = [](const std::string& parallel) { return load_rejection(write_split_config("bad", parallel)); };
  SECTION("one entry per virtual stage") {
    const std::string msg = refused("{pipeline: 4, tensor: 2, stage_layers: [16, 16]}");
    CHECK_THAT(msg, Catch::Contains("bad.yaml:"));
    CHECK_THAT(msg, Catch::Contains("workload.parallel.stage_layers"));
    CHECK_THAT(msg, Catch::Contains("pipeline * virtual_stages = 4"));
  }
  SECTION("every chunk holds a block") {
    CHECK_THAT(refused("{pipeline: 4, tensor: 2, stage_layers: [16, 0, 8, 8]}"),
               Catch::Contains("stage_layers") && Catch::Contains("at least 1"));
  }
  SECTION("the entries add up to the model's layers") {
    CHECK_THAT(refused("{pipeline: 4, tensor: 2, stage_layers: [8, 8, 8, 7]}"),
               Catch::Contains("workload.parallel.stage_layers") && Catch::Contains("sums to 31") &&
                   Catch::Contains("32 layers"));
  }
  SECTION("an even split that does not divide the layers names stage_layers") {
    CHECK_THAT(refused("{pipeline: 3, tensor: 2}"),
               Catch::Contains("workload.parallel.pipeline") && Catch::Contains("stage_layers"));
  }
}
