#include "sim/accuracy/reference_result.hpp"

#include "sim/config/data_root.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/breakdown.hpp"
#include "sim/report/rendezvous.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

namespace {

// Narayanan et al. 2021, eq. (3): FLOPs of one iteration with activation
// recomputation, 96 B s l h^2 (1 + s / 6h + V / 16 l h): how the Megatron-LM
// README counts its TFLOP/s per GPU.
double megatron_hardware_flops(const WorkloadSpec& w) {
  const double B = static_cast<double>(w.global_batch), s = static_cast<double>(w.model.seq_len);
  const double l = static_cast<double>(w.model.layers), h = static_cast<double>(w.model.hidden);
  const double V = static_cast<double>(w.model.vocab);
  return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
}

double metric_of(const ReferenceRun& run, const Scenario& scenario, double step_s) {
  if (run.metric == kMetricStepSeconds) return step_s;
  const double gpus = static_cast<double>(scenario.trace.ranks.size());
  if (run.metric == kMetricTokensPerSecondPerGpu) {
    const WorkloadSpec& w = scenario.workload;
    return static_cast<double>(w.global_batch * w.model.seq_len) / step_s / gpus;
  }
  return megatron_hardware_flops(scenario.workload) / step_s / gpus / 1e12;
}

}  // namespace

ReferenceResult simulate_reference_run(const ReferenceRun& run) {
  const Scenario scenario = load_scenario(data_root() + "/" + run.config);
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning);
  const ExecutionResult result = executor.run();
  ReferenceResult out;
  out.gpus = static_cast<int>(scenario.trace.ranks.size());
  out.simulated = metric_of(run, scenario, ps_to_seconds(result.step_time));
  out.error = out.simulated / run.measured - 1.0;
  const TimeBreakdown mean =
      mean_breakdown(rank_breakdowns(scenario.trace, result, match_rendezvous(scenario.trace, result)));
  for (Category c : kAllCategories) {
    if (mean[c] > mean[out.dominant]) out.dominant = c;
  }
  out.dominant_share = mean.step > 0 ? static_cast<double>(mean[out.dominant]) / static_cast<double>(mean.step) : 0.0;
  return out;
}

}  // namespace simctl
