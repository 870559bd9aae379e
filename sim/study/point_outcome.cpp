#include "sim/study/point_outcome.hpp"

#include <algorithm>

#include "sim/exec/executor.hpp"
#include "sim/report/bottleneck.hpp"
#include "sim/scenario/clock_overflow_error.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/study/cost_defaults.hpp"

namespace simctl {
namespace {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// The fullest rank's use and headroom, from the estimate alone (no replay).
void add_memory(const Scenario& s, PointMetrics& m) {
  bool first = true;
  for (std::uint32_t r = 0; r < s.rank_memory.size(); ++r) {
    double used = 0.0;
    for (const MemoryItem& item : s.rank_memory[r]) used += item.bytes;
    const double headroom = rank_gpu_capacity_bytes(s, r) - used;
    if (first || headroom < m.min_headroom_gib * kGiB) {
      m.peak_memory_gib = used / kGiB;
      m.min_headroom_gib = headroom / kGiB;
      first = false;
    }
  }
}

void add_report(const StepReport& report, const StudyCosts& costs, PointMetrics& m) {
  m.gpus = report.gpus;
  m.nodes = report.nodes;
  m.step_time_ms = ps_to_seconds(report.step_time) * 1e3;
  m.samples_per_s = report.samples_per_s;
  m.tokens_per_s = report.tokens_per_s;
  m.mfu = report.mfu;
  m.model_tflops_per_gpu = report.model_tflops_per_gpu;
  for (Category c : kAllCategories) {
    m.breakdown_ms[static_cast<std::size_t>(c)] = ps_to_seconds(report.mean[c]) * 1e3;
  }
  m.bottleneck = report.bottleneck;
  const CostReport& c = report.costs;
  m.currency = c.currency;
  const double tokens_per_step = report.tokens_per_s ? *report.tokens_per_s * ps_to_seconds(report.step_time) : 0.0;
  if (c.priced) {
    m.cost_per_step = c.cost_per_step;
    if (tokens_per_step > 0) m.cost_per_million_tokens = c.cost_per_million_tokens;
    if (tokens_per_step > 0 && c.owned) m.owned_cost_per_million_tokens = c.owned_cost_per_million_tokens;
  }
  if (c.powered) {
    m.energy_per_step_j = c.total_energy_joules;
    m.average_power_w = c.average_power_watts;
    if (tokens_per_step > 0) m.energy_per_million_tokens_j = c.total_energy_joules / tokens_per_step * 1e6;
  }
  m.pricing_source = !c.priced ? "none" : costs.pricing_from_defaults ? "catalogue defaults" : "config";
  m.power_source = !c.powered ? "none" : costs.power_from_defaults ? "catalogue defaults" : "config";
}

}  // namespace

std::string_view to_string(PointStatus status) {
  switch (status) {
    case PointStatus::ok: return "ok";
    case PointStatus::invalid: return "invalid";
    case PointStatus::out_of_memory: return "out_of_memory";
  }
  return "?";
}

PointOutcome evaluate_point(const std::string& config_path, const ConfigOverrides& overrides,
                            const Catalogues* catalogues, double report_up_to_ms) {
  PointOutcome out;
  ScenarioOptions options;
  options.catalogues = catalogues;
  options.allow_out_of_memory = true;  // judged below, so the row keeps its memory figures
  options.overrides = overrides;
  std::optional<Scenario> scenario;
  try {
    scenario.emplace(load_scenario(config_path, options));
  } catch (const ConfigError& error) {
    out.status = PointStatus::invalid;
    out.reason = error.what();
    return out;
  }
  const Scenario& s = *scenario;
  if (s.workload.inference) {  // its steps are replayed by `simctl run` only
    out.status = PointStatus::invalid;
    out.reason = "an inference workload (task: inference) is not swept yet; run each point with `simctl run`";
    return out;
  }
  add_memory(s, out.metrics);
  out.metrics.gpus = static_cast<int>(s.trace.ranks.size());
  if (auto rank = first_out_of_memory_rank(s)) {
    out.status = PointStatus::out_of_memory;
    out.reason = "out of memory: " + describe_out_of_memory(s, *rank);
    return out;
  }
  const StudyCosts costs = study_costs(s, CostDefaults::load());
  Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  executor.set_fold_tolerance(s.fold_tolerance);
  std::optional<ExecutionResult> replayed;
  try {
    replayed = within_clock(s, config_path, [&executor] { return executor.run(); });
  } catch (const ConfigError& error) {
    out.status = PointStatus::invalid;
    out.reason = error.what();
    return out;
  }
  const ExecutionResult& result = *replayed;
  if (ps_to_seconds(result.step_time) * 1e3 > report_up_to_ms) {
    out.metrics.step_time_ms = ps_to_seconds(result.step_time) * 1e3;
    out.metrics.reported = false;
    return out;
  }
  const StepReport report =
      build_step_report(s.trace, result, s.system, s.catalogue, s.labels, {costs.spec, s.rank_memory});
  add_report(report, costs, out.metrics);
  return out;
}

}  // namespace simctl
