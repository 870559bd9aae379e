// A tiny MLP under DDP on one DGX H100: every kernel is a few microseconds of
// launch overhead around almost no work, so the step is memory- and
// launch-bound, never compute-bound.
#include <catch2/catch.hpp>

#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"
#include "sim/report/step_report.hpp"

using namespace simctl;

namespace {

int compute_ops(const std::vector<Op>& rank) {
  int n = 0;
  for (const auto& op : rank) n += op.stream == Stream::compute ? 1 : 0;
  return n;
}

}  // namespace

TEST_CASE("mlp-33-512-10 DDP step is launch- and memory-bound", "[plans][mlp]") {
  // Under `ideal` the host never holds a kernel back: what bounds each one is
  // the GPU's own launch overhead.
  const testing::PlanRun run = testing::run_config_under("configs/dgx_h100_x8_mlp_ddp.yaml", "ideal");
  REQUIRE(run.step_s() > 0.0);
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  const TimeBreakdown rank0 = rank_breakdown(run.scenario.trace, run.result, rendezvous, 0);
  // Most kernels spend longer launching than computing or moving bytes:
  // launch-bound, not memory-bound (the roofline's side alone would say memory).
  CHECK(rank0[Category::compute_launch_bound] > rank0[Category::compute_memory_bound]);
  CHECK(rank0[Category::compute_launch_bound] > rank0[Category::compute_bound]);
  CHECK(rank0[Category::compute_launch_bound] > rank0.compute() / 2);
  // H100's catalogue launch overhead is 2 us; the kernels do next to nothing
  // else, so the compute time is within 2x of launches alone.
  const double launches_s = compute_ops(run.scenario.trace.ops(0)) * 2e-6;
  const double compute_s = ps_to_seconds(rank0.compute());
  CHECK(compute_s >= launches_s);
  CHECK(compute_s < 2.0 * launches_s);
  CHECK(run.step_s() < 1e-3);
}

TEST_CASE("mlp-33-512-10 under its default framework waits on eager PyTorch's host", "[plans][mlp]") {
  // An MLP defaults to `pytorch` (frameworks.yaml, default_framework), whose
  // host issues each op in 54 us: the step is the host's issue of its ops,
  // twenty times the GPU's own launches.
  const testing::PlanRun run = testing::run_config("configs/dgx_h100_x8_mlp_ddp.yaml");
  const testing::PlanRun ideal = testing::run_config_under("configs/dgx_h100_x8_mlp_ddp.yaml", "ideal");
  CHECK(run.scenario.workload.framework == "pytorch");
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  const TimeBreakdown rank0 = rank_breakdown(run.scenario.trace, run.result, rendezvous, 0);
  const double issue_s = run.scenario.trace.host_issue_seconds_per_op;
  CHECK(issue_s == Approx(54e-6));
  const double compute_issue_s = compute_ops(run.scenario.trace.ops(0)) * issue_s;
  CHECK(ps_to_seconds(rank0[Category::compute_launch_bound]) > 0.9 * compute_issue_s);
  CHECK(run.step_s() > 10.0 * ideal.step_s());
}

TEST_CASE("the MLP's verdict calls its step launch-bound", "[plans][mlp]") {
  const testing::PlanRun run = testing::run_config("configs/dgx_h100_x8_mlp_ddp.yaml");
  const StepReport report = build_step_report(run.scenario.trace, run.result, run.scenario.system,
                                              run.scenario.catalogue, run.scenario.labels);
  CHECK_THAT(report.bottleneck, Catch::StartsWith("launch-bound: "));
  CHECK_THAT(report.bottleneck, Catch::Contains("in launch-bound kernels"));
}
