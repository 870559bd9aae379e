#include <algorithm>

#include "sim/report/render.hpp"

namespace simctl {
namespace {

using nlohmann::json;

json breakdown_json(const TimeBreakdown& b) {
  json categories = json::object(), dimensions = json::object();
  for (Category c : kAllCategories) categories[std::string(to_string(c))] = ps_to_ms(b[c]);
  for (CommDimension d : kAllDimensions) dimensions[std::string(to_string(d))] = ps_to_ms(b[comm_category(d)]);
  return {
      {"step_ms", ps_to_ms(b.step)},
      {"categories_ms", categories},
      {"compute_ms", ps_to_ms(b.compute())},
      {"compute_bound_ms", ps_to_ms(b[Category::compute_bound])},
      {"compute_memory_bound_ms", ps_to_ms(b[Category::compute_memory_bound])},
      {"compute_launch_bound_ms", ps_to_ms(b[Category::compute_launch_bound])},
      {"optimizer_ms", ps_to_ms(b[Category::optimizer])},
      {"exposed_communication_ms", ps_to_ms(b.exposed_communication())},
      {"exposed_communication_by_dimension_ms", dimensions},
      {"overlapped_communication_ms", ps_to_ms(b.overlapped_communication)},
      {"exposed_copy_ms", ps_to_ms(b.exposed_copy())},
      {"data_loading_ms", ps_to_ms(b[Category::data_loading])},
      {"host_copy_ms", ps_to_ms(b[Category::host_copy])},
      {"idle_ms", ps_to_ms(b.idle())},
      {"pipeline_bubble_ms", ps_to_ms(b[Category::pipeline_bubble])},
      {"waiting_ms", ps_to_ms(b[Category::waiting])},
  };
}

json link_json(const LinkReport& l) {
  return {{"name", l.name},
          {"kind", l.kind},
          {"tier", l.tier},
          {"busy_ms", ps_to_ms(l.busy)},
          {"utilisation", l.utilisation},
          {"bytes", l.bytes},
          {"average_bandwidth_GBps", l.average_bandwidth_bytes_per_s / 1e9},
          {"capacity_GBps", l.capacity_bytes_per_s / 1e9},
          {"bandwidth_utilisation", l.bandwidth_utilisation}};
}

json tier_json(const TierReport& t) {
  return {{"name", t.name},
          {"links", t.links},
          {"busy_links", t.busy_links},
          {"bytes", t.bytes},
          {"mean_utilisation", t.mean_utilisation},
          {"max_utilisation", t.max_utilisation},
          {"mean_bandwidth_utilisation", t.mean_bandwidth_utilisation},
          {"max_bandwidth_utilisation", t.max_bandwidth_utilisation},
          {"oversubscription", t.oversubscription}};
}

json path_json(const CriticalPath& path, TimePs step) {
  json resources = json::array(), longest = json::array();
  for (const ResourceShare& r : path.resources) {
    resources.push_back({{"resource", r.resource},
                         {"time_ms", ps_to_ms(r.time)},
                         {"share", step > 0 ? static_cast<double>(r.time) / static_cast<double>(step) : 0.0}});
  }
  for (const PathOp& p : longest_ops(path, 10)) {
    longest.push_back({{"rank", p.op.rank},
                       {"op", p.op.op},
                       {"name", p.name},
                       {"resource", p.resource},
                       {"start_ms", ps_to_ms(p.start)},
                       {"end_ms", ps_to_ms(p.end)},
                       {"duration_ms", ps_to_ms(p.end - p.start)}});
  }
  return {
      {"ops", path.ops.size()}, {"gaps_ms", ps_to_ms(path.gaps)}, {"resources", resources}, {"longest_ops", longest}};
}

json memory_json(const std::vector<RankMemory>& memory) {
  json out = json::array();
  for (std::size_t r = 0; r < memory.size(); ++r) {
    json items = json::array();
    for (const MemoryItem& i : memory[r].items) items.push_back({{"name", i.name}, {"bytes", i.bytes}});
    out.push_back({{"rank", r},
                   {"estimated", memory[r].estimated},
                   {"items", items},
                   {"used_bytes", memory[r].used_bytes},
                   {"capacity_bytes", memory[r].capacity_bytes},
                   {"headroom_bytes", memory[r].headroom_bytes}});
  }
  return out;
}

// Per million tokens is null for a model without tokens (MLP, CNN).
json owned_json(const CostReport& c, bool has_tokens) {
  if (!c.owned) return nullptr;
  return {{"per_step", c.owned_cost_per_step},
          {"hardware_per_step", c.owned_hardware_per_step},
          {"per_million_tokens", has_tokens ? json(c.owned_cost_per_million_tokens) : json(nullptr)},
          {"assumptions", c.owned_assumptions}};
}

json cost_json(const CostReport& c, bool has_tokens) {
  if (!c.priced) return nullptr;
  return {{"currency", c.currency},
          {"per_step", c.cost_per_step},
          {"per_million_tokens", has_tokens ? json(c.cost_per_million_tokens) : json(nullptr)},
          {"owned", owned_json(c, has_tokens)}};
}

json energy_json(const CostReport& c) {
  if (!c.powered) return nullptr;
  return {{"gpu_joules", c.gpu_energy_joules},
          {"total_joules", c.total_energy_joules},
          {"average_power_watts", c.average_power_watts},
          {"cost_per_step", c.energy_cost_per_step}};
}

json collective_json(const CollectiveReport& c) {
  const CollectiveKind& k = c.usage.kind;
  return {{"op", to_string(k.op)},
          {"dimension", to_string(k.dimension)},
          {"ranks", k.ranks},
          {"algorithm", to_string(k.algorithm)},
          {"protocol", to_string(k.protocol)},
          {"calls", c.usage.calls},
          {"bytes", c.usage.bytes},
          {"time_ms", ps_to_ms(c.usage.time)},
          {"algbw_GBps", c.algbw_bytes_per_s / 1e9},
          {"busbw_GBps", c.busbw_bytes_per_s / 1e9}};
}

template <typename T, typename F>
json array_of(const std::vector<T>& items, F to_json) {
  json out = json::array();
  for (const T& item : items) out.push_back(to_json(item));
  return out;
}

}  // namespace

json render_json(const StepReport& r) {
  json ranks = json::array();
  for (std::size_t i = 0; i < r.per_rank.size(); ++i) {
    json b = breakdown_json(r.per_rank[i]);
    b["rank"] = i;
    ranks.push_back(std::move(b));
  }
  const auto device_json = [](const DeviceReport& d) {
    return json{{"name", d.name}, {"kind", d.kind}, {"utilisation", d.utilisation}, {"peers", d.peers}};
  };
  return {
      {"schema_version", kReportSchemaVersion},
      {"system", r.labels.system},
      {"workload", r.labels.workload},
      {"priced_by", r.labels.priced_by.empty() ? json(nullptr) : json(r.labels.priced_by)},
      {"gpus", r.gpus},
      {"nodes", r.nodes},
      {"step_time_ms", ps_to_ms(r.step_time)},
      {"samples_per_s", r.samples_per_s},
      {"tokens_per_s", r.tokens_per_s ? json(*r.tokens_per_s) : json(nullptr)},
      {"model_tflops_per_gpu", r.model_tflops_per_gpu},
      {"mfu", r.mfu},
      {"peak_tflops_per_gpu", r.peak_tflops_per_gpu},
      {"dtype", r.dtype},
      {"cost", cost_json(r.costs, r.tokens_per_s.has_value())},
      {"energy", energy_json(r.costs)},
      {"breakdown", breakdown_json(r.mean)},
      {"per_rank", ranks},
      {"busiest_links", array_of(r.busiest_links, link_json)},
      {"tiers", array_of(r.tiers, tier_json)},
      {"busiest_devices", array_of(r.busiest_devices, device_json)},
      {"critical_path", path_json(r.critical_path, r.step_time)},
      {"collectives", array_of(r.collectives, collective_json)},
      {"memory", memory_json(r.memory)},
      {"out_of_memory",
       std::any_of(r.memory.begin(), r.memory.end(), [](const RankMemory& m) { return m.out_of_memory(); })},
      {"bottleneck", r.bottleneck},
      {"ops", r.ops},
      {"events", r.events},
      {"flows", r.flows},
  };
}

}  // namespace simctl
