#include "sim/report/step_report.hpp"

#include <algorithm>
#include <set>

#include "models/devices/device_catalogue.hpp"
#include "sim/exec/execution_result.hpp"
#include "sim/report/bottleneck.hpp"
#include "sim/report/rendezvous.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {
namespace {

constexpr std::size_t kBusiestLinks = 5;
constexpr std::size_t kBusiestDevices = 5;

EndpointId rank_part(const Trace& trace, const System& system, std::size_t rank) {
  return system.gpus()[trace.gpu_index(static_cast<std::uint32_t>(rank))];
}

const GpuSpec& rank_gpu(const Trace& trace, const System& system, const DeviceCatalogue& catalogue, std::size_t rank) {
  return catalogue.gpu(system.part(rank_part(trace, system, rank)).model);
}

// Each GPU model the ranks run on, in rank order, with its rank count and
// dense peak in the step's dtype.
std::vector<StepReport::GpuPeak> gpu_peaks(const Trace& trace, const System& system, const DeviceCatalogue& catalogue) {
  std::vector<StepReport::GpuPeak> peaks;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    const GpuSpec& gpu = rank_gpu(trace, system, catalogue, r);
    auto at = std::find_if(peaks.begin(), peaks.end(), [&](const auto& p) { return p.model == gpu.id; });
    if (at == peaks.end())
      at = peaks.insert(peaks.end(), {gpu.id, 0, gpu.peak(trace.compute_dtype).flops_per_s / 1e12});
    ++at->ranks;
  }
  return peaks;
}

// Sum of the ranks' dense peaks, in FLOP/s.
double total_peak_flops(const std::vector<StepReport::GpuPeak>& peaks) {
  double peak = 0.0;
  for (const auto& p : peaks) peak += p.ranks * p.tflops * 1e12;
  return peak;
}

void add_throughput(const Trace& trace, const System& system, const DeviceCatalogue& catalogue, StepReport& report) {
  const double step_s = ps_to_seconds(report.step_time);
  report.gpu_peaks = gpu_peaks(trace, system, catalogue);
  const double peak = total_peak_flops(report.gpu_peaks);
  if (step_s > 0 && report.gpus > 0) {
    report.samples_per_s = trace.totals.samples / step_s;
    if (trace.totals.tokens > 0) report.tokens_per_s = trace.totals.tokens / step_s;
    report.model_tflops_per_gpu = trace.totals.model_flops / step_s / report.gpus / 1e12;
    report.mfu = peak > 0 ? trace.totals.model_flops / step_s / peak : 0.0;
  }
  report.peak_tflops_per_gpu = report.gpus > 0 ? peak / report.gpus / 1e12 : 0.0;
  report.dtype = std::string(to_string(trace.compute_dtype));
}

// The NIC ports a buyer pays for per GPU: those of the nodes the run spans
// over the GPUs there (each NIC counted with its catalogue port count).
double nic_ports_per_gpu(const Trace& trace, const System& system, const DeviceCatalogue& catalogue) {
  std::set<int> spanned;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) spanned.insert(system.part(rank_part(trace, system, r)).node);
  double ports = 0.0, gpus = 0.0;
  for (PartKind kind : {PartKind::nic, PartKind::gpu}) {
    for (EndpointId id : system.parts_of_kind(kind)) {
      const Part& part = system.part(id);
      if (spanned.count(part.node) == 0) continue;
      if (kind == PartKind::gpu)
        gpus += 1.0;
      else if (const NicSpec* nic = catalogue.find_nic(part.model))
        ports += nic->ports;
    }
  }
  return gpus > 0.0 ? ports / gpus : 0.0;
}

void add_costs(const Trace& trace, const System& system, const DeviceCatalogue& catalogue, const CostSpec& spec,
               StepReport& report) {
  std::vector<GpuActivity> gpus;
  for (std::size_t r = 0; r < report.per_rank.size(); ++r) {
    gpus.push_back({rank_gpu(trace, system, catalogue, r).tdp_watts, report.per_rank[r].compute()});
  }
  report.costs = compute_costs(spec, report.step_time, trace.totals.tokens, report.nodes, gpus,
                               nic_ports_per_gpu(trace, system, catalogue));
}

void add_memory(const Trace& trace, const System& system, const DeviceCatalogue& catalogue, const ReportInputs& inputs,
                StepReport& report) {
  for (std::size_t r = 0; r < report.per_rank.size(); ++r) {
    auto items = r < inputs.memory.size() ? inputs.memory[r] : std::vector<MemoryItem>{};
    const double capacity = static_cast<double>(rank_gpu(trace, system, catalogue, r).memory_capacity);
    report.memory.push_back(rank_memory(std::move(items), capacity));
  }
}

// Nodes the job spans (not the whole system's).
int nodes_used(const Trace& trace, const System& system) {
  std::vector<int> nodes;
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) nodes.push_back(system.part(rank_part(trace, system, r)).node);
  std::sort(nodes.begin(), nodes.end());
  return static_cast<int>(std::unique(nodes.begin(), nodes.end()) - nodes.begin());
}

std::vector<CollectiveReport> collective_reports(const std::vector<CollectiveUsage>& usages) {
  std::vector<CollectiveReport> out;
  for (const CollectiveUsage& u : usages) {
    const double seconds = ps_to_seconds(u.time);
    const double algbw = seconds > 0 ? u.bytes / seconds : 0.0;
    const double factor = bus_bandwidth_factor(u.kind.op, static_cast<int>(u.kind.ranks));
    out.push_back({u, algbw, algbw * factor});
  }
  return out;
}

}  // namespace

StepReport build_step_report(const Trace& trace, const ExecutionResult& result, const System& system,
                             const DeviceCatalogue& catalogue, RunLabels labels, const ReportInputs& inputs) {
  StepReport report;
  report.labels = std::move(labels);
  report.gpus = static_cast<int>(trace.ranks.size());
  report.nodes = nodes_used(trace, system);
  for (std::size_t r = 0; r < trace.ranks.size(); ++r)
    report.rank_gpu_names.push_back(system.part(rank_part(trace, system, r)).name);
  report.step_time = result.step_time;
  const RendezvousTable rendezvous = match_rendezvous(trace, result);
  std::vector<TimePs> compute(system.gpus().size(), 0);  // by the system's GPU index
  report.per_rank = rank_breakdowns(trace, result, rendezvous);
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    compute[trace.gpu_index(r)] = report.per_rank[r].compute();
    report.ops += trace.ops(r).size();
  }
  report.mean = mean_breakdown(report.per_rank);
  add_throughput(trace, system, catalogue, report);
  add_costs(trace, system, catalogue, inputs.costs, report);
  add_memory(trace, system, catalogue, inputs, report);
  report.links = link_reports(result, system);
  report.busiest_links = busiest_links(report.links, kBusiestLinks);
  report.tiers = tier_reports(report.links, system);
  report.busiest_devices = busiest_devices(report.links, system, compute, result.step_time, kBusiestDevices);
  report.critical_path = critical_path(trace, result, rendezvous);
  report.collectives = collective_reports(result.collectives);
  report.waited_on = time_waited_on(trace, result, rendezvous);
  report.bottleneck = describe_bottleneck(report);
  report.events = result.events;
  report.flows = result.flows;
  return report;
}

}  // namespace simctl
