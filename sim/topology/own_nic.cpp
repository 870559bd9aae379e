#include "sim/topology/own_nic.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <queue>
#include <unordered_map>

namespace simctl {
namespace {

struct Reached {
  std::int32_t cost = std::numeric_limits<std::int32_t>::max();
  EndpointId prev = 0;
  std::uint32_t cable = 0;
};

// Least-cost search inside the GPU's node, stopping at NICs: a route may
// pass through switches and CPU sockets (with their penalty), not through a
// NIC or another GPU.
std::unordered_map<EndpointId, Reached> search_node(const RouteGraph& g, EndpointId gpu) {
  std::unordered_map<EndpointId, Reached> reached;
  using Entry = std::pair<std::int32_t, EndpointId>;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<>> open;
  reached[gpu].cost = 0;
  open.push({0, gpu});
  while (!open.empty()) {
    const auto [cost, at] = open.top();
    open.pop();
    if (cost > reached[at].cost) continue;
    const bool expands = at == gpu || (g.forwards[at] && g.kind[at] != PartKind::nic);
    if (!expands) continue;
    const std::int32_t through = cost + 1 + (at == gpu ? 0 : g.penalty[at]);
    for (std::uint32_t i = g.first[at]; i < g.first[at + 1]; ++i) {
      const EndpointId next = g.neighbour[i];
      if (g.node[next] != g.node[gpu]) continue;
      Reached& r = reached[next];
      if (through >= r.cost) continue;  // ties keep the first found (equal costs pop lowest part first)
      r = {through, at, g.cable[i]};
      open.push({through, next});
    }
  }
  return reached;
}

}  // namespace

std::optional<OwnNic> find_own_nic(const RouteGraph& g, const SystemGraph& parts, EndpointId gpu) {
  if (g.kind[gpu] != PartKind::gpu || g.node[gpu] < 0) return std::nullopt;
  const auto reached = search_node(g, gpu);
  std::vector<EndpointId> nearest;
  std::int32_t best = std::numeric_limits<std::int32_t>::max();
  for (const auto& [part, r] : reached) {
    if (g.kind[part] != PartKind::nic || r.cost > best) continue;
    if (r.cost < best) nearest.clear(), best = r.cost;
    nearest.push_back(part);
  }
  if (nearest.empty()) return std::nullopt;
  // By index in their group (NIC i of a switch), then by part: the map's
  // order must not decide.
  std::sort(nearest.begin(), nearest.end(), [&](EndpointId a, EndpointId b) {
    return parts[a].index != parts[b].index ? parts[a].index < parts[b].index : a < b;
  });
  OwnNic own;
  own.nic = nearest[static_cast<std::size_t>(parts[gpu].index) % nearest.size()];
  int ports = 0;
  for (std::uint32_t i = g.first[own.nic]; i < g.first[own.nic + 1]; ++i) {
    if (g.node[g.neighbour[i]] >= 0) continue;
    own.fabric = g.neighbour[i];
    own.fabric_cable = g.cable[i];
    ++ports;
  }
  if (ports != 1) return std::nullopt;
  for (EndpointId at = own.nic; at != gpu; at = reached.at(at).prev) own.cables.push_back(reached.at(at).cable);
  std::reverse(own.cables.begin(), own.cables.end());
  return own;
}

}  // namespace simctl
