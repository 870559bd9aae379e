#include "sim/report/render.hpp"

namespace simctl {
namespace {

nlohmann::json breakdown_json(const TimeBreakdown& b) {
  return {
      {"compute_ms", ps_to_ms(b.compute)},
      {"compute_memory_bound_ms", ps_to_ms(b.compute_memory_bound)},
      {"exposed_communication_ms", ps_to_ms(b.exposed_communication)},
      {"overlapped_communication_ms", ps_to_ms(b.overlapped_communication)},
      {"exposed_copy_ms", ps_to_ms(b.exposed_copy)},
      {"idle_ms", ps_to_ms(b.idle)},
      {"step_ms", ps_to_ms(b.step)},
  };
}

}  // namespace

nlohmann::json render_json(const StepReport& r) {
  nlohmann::json links = nlohmann::json::array();
  for (const auto& l : r.busiest_links) {
    links.push_back({{"name", l.name},
                     {"busy_ms", ps_to_ms(l.busy)},
                     {"utilisation", l.utilisation},
                     {"bytes", l.bytes},
                     {"average_bandwidth_GBps", l.average_bandwidth_bytes_per_s / 1e9}});
  }
  nlohmann::json ranks = nlohmann::json::array();
  for (const auto& b : r.per_rank) ranks.push_back(breakdown_json(b));
  return {
      {"schema_version", kReportSchemaVersion},
      {"system", r.labels.system},
      {"workload", r.labels.workload},
      {"gpus", r.gpus},
      {"step_time_ms", ps_to_ms(r.step_time)},
      {"samples_per_s", r.samples_per_s},
      {"tokens_per_s", r.tokens_per_s},
      {"model_tflops_per_gpu", r.model_tflops_per_gpu},
      {"mfu", r.mfu},
      {"peak_tflops_per_gpu", r.peak_tflops_per_gpu},
      {"dtype", r.dtype},
      {"breakdown", breakdown_json(r.mean)},
      {"per_rank", ranks},
      {"busiest_links", links},
      {"bottleneck", r.bottleneck},
      {"events", r.events},
      {"flows", r.flows},
  };
}

}  // namespace simctl
