// One GPU at 80% speed: under DDP every bucket all-reduce waits for it, so
// the step runs at its pace, the others idle, and the report says who.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "plan_run.hpp"
#include "sim/config/config_error.hpp"
#include "sim/report/step_report.hpp"

using namespace simctl;

namespace {

StepReport report_of(const testing::PlanRun& run) {
  return build_step_report(run.scenario.trace, run.result, run.scenario.system, run.scenario.catalogue,
                           run.scenario.labels);
}

std::string straggler_rejection(const std::string& stragglers_yaml) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_straggler_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "run.yaml";
  std::ofstream(file) << "system: " << SIMCTL_SOURCE_DIR
                      << "/configs/systems/dgx_h100.yaml\nworkload: " << SIMCTL_SOURCE_DIR
                      << "/configs/workloads/gpt_1p3b_ddp.yaml\nstragglers:\n"
                      << stragglers_yaml;
  try {
    load_scenario(file.string());
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("accepted " << stragglers_yaml);
  return {};
}

}  // namespace

TEST_CASE("a GPU at 80% speed sets the pace of a DDP step and is named", "[plans][straggler]") {
  // Under `ideal` every kernel is the GPU's alone: no host issue bounds any.
  const auto healthy = testing::run_config_under("configs/dgx_h100_x8.yaml", "ideal");
  const auto slowed = testing::run_config_under("configs/dgx_h100_x8_straggler.yaml", "ideal");
  const StepReport before = report_of(healthy), after = report_of(slowed);
  // Its compute takes 1/0.8 as long; the others' is unchanged.
  CHECK(ps_to_seconds(after.per_rank[3].compute()) == Approx(ps_to_seconds(before.per_rank[3].compute()) / 0.8));
  CHECK(after.per_rank[0].compute() == before.per_rank[0].compute());
  // A compute-bound step stretches by nearly the same factor.
  CHECK(after.step_time > 1.2 * before.step_time);
  CHECK(after.step_time < 1.26 * before.step_time);
  // The healthy ranks wait for it; it waits for nobody.
  CHECK(after.per_rank[0][Category::waiting] > 0.15 * after.step_time);
  CHECK(after.per_rank[3][Category::waiting] < after.per_rank[0][Category::waiting] / 10);
  CHECK_THAT(after.bottleneck, Catch::Contains("mostly for rank 3 on node0.gpu3"));
}

TEST_CASE("bad stragglers name the entry and what is valid", "[plans][straggler][bad-input]") {
  CHECK_THAT(straggler_rejection("  - {gpu: node0.gpu9, compute_speed: 0.8}\n"), Catch::Contains("stragglers[0].gpu"));
  CHECK_THAT(straggler_rejection("  - {gpu: node0.gpu9, compute_speed: 0.8}\n"), Catch::Contains("node0.gpu"));
  CHECK_THAT(straggler_rejection("  - {gpu: node0.nvswitch, compute_speed: 0.8}\n"), Catch::Contains("is not a GPU"));
  CHECK_THAT(straggler_rejection("  - {gpu: gpu:2, compute_speed: 1.5}\n"), Catch::Contains("(0, 1]"));
  CHECK_THAT(straggler_rejection("  - {gpu: gpu:2, speed: 0.5}\n"), Catch::Contains("unknown field"));
}

TEST_CASE("DDP over H100 and A100 nodes runs at the A100s' pace and says so", "[plans][heterogeneous]") {
  const auto run = testing::run_config("configs/mixed_h100_a100_ddp.yaml");
  const StepReport report = report_of(run);
  REQUIRE(report.per_rank.size() == 32);
  // The header counts each GPU model, not the first model times all GPUs.
  CHECK(report.labels.system == "2x DGX H100 + 2x DGX A100, NDR: 16 x h100-sxm + 16 x a100-sxm-80gb in 4 nodes");
  // Ranks 0-15 are on the H100 nodes, 16-31 on the A100 nodes: the same work
  // takes each GPU type its own time.
  const double h100 = ps_to_seconds(report.per_rank[0].compute());
  const double a100 = ps_to_seconds(report.per_rank[16].compute());
  // (About 2x: the H100's tensor-core kernels run at its measured power-capped
  // clock in a step, gpus.yaml sustained_tensor_slowdown, the A100's at the fit's.)
  CHECK(a100 > 1.8 * h100);
  CHECK(report.per_rank[15].compute() == report.per_rank[0].compute());
  // The H100s wait for the A100s at every bucket all-reduce; the A100s hardly wait.
  // (Part of the gap shows as exposed communication: the all-reduces run at
  // the pace of the last arrivals' buckets.)
  const TimeBreakdown& fast = report.per_rank[0];
  CHECK(ps_to_seconds(fast[Category::waiting]) > 0.6 * (a100 - h100));
  CHECK(ps_to_seconds(fast[Category::waiting] + fast.exposed_communication()) > 0.95 * (a100 - h100));
  CHECK(report.per_rank[16][Category::waiting] < report.per_rank[0][Category::waiting] / 10);
  CHECK_THAT(report.bottleneck, Catch::Contains("and 15 ranks as slow"));
  // MFU is against the mean of the two peaks (989 and 312 TFLOP/s dense bf16).
  CHECK(report.peak_tflops_per_gpu == Approx((989.0 + 312.0) / 2).epsilon(0.01));
}

// compute_speed 1e-9 had ended in "Engine::schedule_at: time is in the past"
// with no file, line or field: picosecond time overflowed.
TEST_CASE("a straggler too slow for the clock is refused at its compute_speed", "[plans][straggler][bad-input]") {
  for (const char* speed : {"1e-9", "1e-12", "1e-300"}) {
    const std::string message =
        straggler_rejection(std::string("  - {gpu: node0.gpu3, compute_speed: ") + speed + "}\n");
    INFO(message);
    CHECK_THAT(message, Catch::Contains("run.yaml:4:38:"));  // the value, on the stragglers list's line
    CHECK_THAT(message, Catch::Contains("field 'stragglers[0].compute_speed'"));
    CHECK_THAT(message, Catch::Contains("past the simulated clock's range"));
    CHECK_THAT(message, Catch::Contains("use a compute_speed of at least 1e-06"));
  }
  // The slowest of several is the one named.
  const std::string two = straggler_rejection(
      "  - {gpu: node0.gpu1, compute_speed: 0.5}\n"
      "  - {gpu: node0.gpu3, compute_speed: 1e-10}\n");
  CHECK_THAT(two, Catch::Contains("field 'stragglers[1].compute_speed'"));
}
