#include "sim/report/step_report.hpp"

#include <algorithm>

#include "models/devices/device_catalogue.hpp"
#include "sim/exec/execution_result.hpp"
#include "sim/report/bottleneck.hpp"
#include "sim/report/breakdown.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {
namespace {

constexpr std::size_t kBusiestLinks = 5;

std::vector<LinkReport> busiest_links(const ExecutionResult& result, const System& system) {
  std::vector<LinkId> ids;
  for (LinkId l = 0; l < result.links.size(); ++l) {
    if (result.links[l].busy > 0) ids.push_back(l);
  }
  // Ties broken by link id so the table is the same on every run.
  std::stable_sort(ids.begin(), ids.end(),
                   [&](LinkId a, LinkId b) { return result.links[a].busy > result.links[b].busy; });
  if (ids.size() > kBusiestLinks) ids.resize(kBusiestLinks);
  const double step_s = ps_to_seconds(result.step_time);
  std::vector<LinkReport> out;
  for (LinkId l : ids) {
    LinkReport r;
    r.name = system.link_name(l);
    r.busy = result.links[l].busy;
    r.bytes = result.links[l].bytes;
    r.utilisation = step_s > 0 ? ps_to_seconds(r.busy) / step_s : 0.0;
    r.average_bandwidth_bytes_per_s = step_s > 0 ? r.bytes / step_s : 0.0;
    out.push_back(std::move(r));
  }
  return out;
}

// Sum of the ranks' dense peaks in the step's dtype, in FLOP/s.
double total_peak_flops(const Trace& trace, const System& system, const DeviceCatalogue& catalogue) {
  double peak = 0.0;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    const GpuSpec& gpu = catalogue.gpu(system.part(system.gpus()[r]).model);
    peak += gpu.peak(trace.compute_dtype).flops_per_s;
  }
  return peak;
}

}  // namespace

StepReport build_step_report(const Trace& trace, const ExecutionResult& result, const System& system,
                             const DeviceCatalogue& catalogue, RunLabels labels) {
  StepReport report;
  report.labels = std::move(labels);
  report.gpus = static_cast<int>(trace.ranks.size());
  report.step_time = result.step_time;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    report.per_rank.push_back(rank_breakdown(trace.ranks[r], result.ranks[r], result.step_time));
  }
  report.mean = mean_breakdown(report.per_rank);

  const double step_s = ps_to_seconds(result.step_time);
  const double peak = total_peak_flops(trace, system, catalogue);
  if (step_s > 0) {
    report.samples_per_s = trace.totals.samples / step_s;
    report.tokens_per_s = trace.totals.tokens / step_s;
    report.model_tflops_per_gpu = trace.totals.model_flops / step_s / report.gpus / 1e12;
    report.mfu = peak > 0 ? trace.totals.model_flops / step_s / peak : 0.0;
  }
  report.peak_tflops_per_gpu = report.gpus > 0 ? peak / report.gpus / 1e12 : 0.0;
  report.dtype = std::string(to_string(trace.compute_dtype));
  report.busiest_links = busiest_links(result, system);
  report.bottleneck = describe_bottleneck(report);
  report.events = result.events;
  report.flows = result.flows;
  return report;
}

}  // namespace simctl
