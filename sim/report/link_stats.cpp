#include "sim/report/link_stats.hpp"

#include <algorithm>
#include <map>

namespace simctl {
namespace {

// Parts within this much busy fraction of the busiest of their kind count as tied.
constexpr double kTiePoints = 0.01;

double fraction(double part, double whole) { return whole > 0 ? part / whole : 0.0; }

std::string tier_of(const System& system, LinkId l) {
  return tier_end_label(system.part(system.link_source(l))) + "->" + tier_end_label(system.part(system.link_target(l)));
}

// Capacity entering the parts labelled `from` over links that do not come
// down from `to`, divided by the capacity of the from->to tier.
double oversubscription(const std::vector<LinkReport>& links, const System& system, const std::string& from,
                        const std::string& to) {
  double into = 0.0, up = 0.0;
  for (const LinkReport& l : links) {
    const std::string src = tier_end_label(system.part(system.link_source(l.id)));
    const std::string dst = tier_end_label(system.part(system.link_target(l.id)));
    if (dst == from && src != to) into += l.capacity_bytes_per_s;
    if (src == from && dst == to) up += l.capacity_bytes_per_s;
  }
  return fraction(into, up);
}

}  // namespace

std::string tier_end_label(const Part& part) {
  if (part.kind == PartKind::network_switch && !part.group.empty()) return part.group;
  return std::string(to_string(part.kind));
}

std::vector<LinkReport> link_reports(const ExecutionResult& result, const System& system) {
  const auto capacities = system.link_capacities();
  const double step_s = ps_to_seconds(result.step_time);
  std::vector<LinkReport> out;
  for (LinkId l = 0; l < result.links.size() && l < system.num_links(); ++l) {
    LinkReport r;
    r.id = l;
    r.name = system.link_name(l);
    r.kind = std::string(to_string(system.link_spec(l).kind));
    r.tier = tier_of(system, l);
    r.busy = result.links[l].busy;
    r.bytes = result.links[l].bytes;
    r.utilisation = fraction(ps_to_seconds(r.busy), step_s);
    r.average_bandwidth_bytes_per_s = fraction(r.bytes, step_s);
    r.capacity_bytes_per_s = capacities[l].bytes_per_s;
    r.bandwidth_utilisation = fraction(r.average_bandwidth_bytes_per_s, r.capacity_bytes_per_s);
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<LinkReport> busiest_links(const std::vector<LinkReport>& links, std::size_t count) {
  std::vector<LinkReport> busy;
  std::copy_if(links.begin(), links.end(), std::back_inserter(busy), [](const LinkReport& l) { return l.busy > 0; });
  // By the share of capacity used, then by busy time: a link carrying a flow
  // throttled elsewhere is busy as long as the flow lasts, yet it is the
  // link running near its capacity that limits the step. Stable, over links
  // in id order: ties keep the lower id first, every run.
  std::stable_sort(busy.begin(), busy.end(), [](const LinkReport& a, const LinkReport& b) {
    if (a.bandwidth_utilisation != b.bandwidth_utilisation) return a.bandwidth_utilisation > b.bandwidth_utilisation;
    return a.busy > b.busy;
  });
  if (busy.size() > count) busy.resize(count);
  return busy;
}

std::vector<TierReport> tier_reports(const std::vector<LinkReport>& links, const System& system) {
  std::vector<TierReport> tiers;
  std::map<std::string, std::size_t> index;
  for (const LinkReport& l : links) {
    auto [it, added] = index.emplace(l.tier, tiers.size());
    if (added) tiers.push_back(TierReport{l.tier});
    TierReport& t = tiers[it->second];
    ++t.links;
    t.busy_links += l.busy > 0 ? 1 : 0;
    t.bytes += l.bytes;
    t.mean_utilisation += l.utilisation;
    t.max_utilisation = std::max(t.max_utilisation, l.utilisation);
    t.mean_bandwidth_utilisation += l.bandwidth_utilisation;
    t.max_bandwidth_utilisation = std::max(t.max_bandwidth_utilisation, l.bandwidth_utilisation);
  }
  for (TierReport& t : tiers) {
    t.mean_utilisation /= t.links;
    t.mean_bandwidth_utilisation /= t.links;
    const auto arrow = t.name.find("->");
    const std::string from = t.name.substr(0, arrow), to = t.name.substr(arrow + 2);
    const bool switches =
        from != "network_switch" && from != to && std::any_of(links.begin(), links.end(), [&](const LinkReport& l) {
          return l.tier == t.name && system.part(system.link_source(l.id)).kind == PartKind::network_switch &&
                 system.part(system.link_target(l.id)).kind == PartKind::network_switch;
        });
    if (switches) t.oversubscription = oversubscription(links, system, from, to);
  }
  return tiers;
}

std::vector<DeviceReport> busiest_devices(const std::vector<LinkReport>& links, const System& system,
                                          const std::vector<TimePs>& gpu_compute, TimePs step, std::size_t count) {
  std::vector<double> load(system.num_parts(), 0.0);
  for (const LinkReport& l : links) {
    for (EndpointId end : {system.link_source(l.id), system.link_target(l.id)}) {
      load[end] = std::max(load[end], l.utilisation);
    }
  }
  for (std::size_t r = 0; r < gpu_compute.size() && r < system.gpus().size(); ++r) {
    load[system.gpus()[r]] = fraction(ps_to_seconds(gpu_compute[r]), ps_to_seconds(step));
  }
  // The busiest part of each kind, so eight equally busy GPUs do not hide
  // the NIC or switch behind them; `peers` counts the equally busy rest.
  std::map<PartKind, DeviceReport> best;
  for (EndpointId p = 0; p < system.num_parts(); ++p) {
    if (load[p] <= 0) continue;
    const Part& part = system.part(p);
    auto [it, added] = best.emplace(part.kind, DeviceReport{part.name, std::string(to_string(part.kind)), load[p]});
    if (!added && load[p] > it->second.utilisation) it->second = {part.name, it->second.kind, load[p]};
  }
  std::vector<DeviceReport> out;
  for (auto& [kind, device] : best) {
    for (EndpointId p = 0; p < system.num_parts(); ++p) {
      const bool peer = system.part(p).kind == kind && system.part(p).name != device.name;
      if (peer && device.utilisation - load[p] < kTiePoints) ++device.peers;
    }
    out.push_back(device);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.utilisation > b.utilisation; });
  if (out.size() > count) out.resize(count);
  return out;
}

}  // namespace simctl
