#include "sim/topology/routing.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/topology/destination_costs.hpp"
#include "sim/topology/ecmp.hpp"
#include "sim/topology/route_graph.hpp"
#include "sim/topology/route_search.hpp"

namespace simctl {
namespace {

EndpointId other_end(const Cable& cable, EndpointId v) { return cable.a == v ? cable.b : cable.a; }

std::invalid_argument no_route(const SystemGraph& graph, EndpointId from, EndpointId to) {
  return std::invalid_argument("no route from '" + graph[from].name + "' to '" + graph[to].name + "'");
}

}  // namespace

int transit_penalty(const Part& v) { return v.kind == PartKind::cpu_socket ? kCpuTransitPenalty : 0; }

RouteTree build_route_tree(const SystemGraph& graph, EndpointId root) {
  return build_route_tree(RouteGraph(graph), root);
}

RouteCache::RouteCache() = default;
RouteCache::~RouteCache() = default;

void RouteCache::clear() {
  own_nics_.clear();
  search_.reset();
  node_search_.reset();
  destinations_.clear();
  outside_trees_.clear();
  hops_.clear();
  flat_.reset();
  paths_.clear();
  ecmp_paths_.clear();
  keyless_paths_.clear();
}

const RouteGraph& RouteCache::flat(const SystemGraph& graph) {
  if (!flat_) flat_ = std::make_unique<RouteGraph>(graph);
  return *flat_;
}

RouteSearch& RouteCache::search_from(const SystemGraph& graph, EndpointId root) {
  if (!search_) {
    search_ = std::make_unique<RouteSearch>(flat(graph));
    search_->restart(root);
  } else if (search_->root() != root) {
    search_->restart(root);
  }
  return *search_;
}

const std::vector<std::int32_t>& RouteCache::outside_tree(EndpointId root) {
  auto it = outside_trees_.find(root);
  if (it == outside_trees_.end()) it = outside_trees_.emplace(root, route_costs(*flat_, root)).first;
  return it->second;
}

const DestinationCosts& RouteCache::costs_to(const SystemGraph& graph, EndpointId to) {
  auto it = destinations_.find(to);
  if (it != destinations_.end()) return *it->second;
  const RouteGraph& g = flat(graph);
  std::unique_ptr<DestinationCosts> costs;
  if (g.node[to] == kNoNode) {
    costs = std::make_unique<DestinationCosts>(route_costs(g, to));
  } else {
    if (!node_search_) node_search_ = std::make_unique<RouteSearch>(g);
    costs = std::make_unique<DestinationCosts>(
        g, to, [this](EndpointId s) -> const std::vector<std::int32_t>& { return outside_tree(s); }, *node_search_);
  }
  return *destinations_.emplace(to, std::move(costs)).first->second;
}

bool RouteCache::reachable(const SystemGraph& graph, EndpointId from, EndpointId to) {
  return costs_to(graph, to).cost(from) != RouteTree::kUnreachable;
}

std::optional<EndpointId> RouteCache::nearest(const SystemGraph& graph, EndpointId from, PartKind kind) {
  return search_from(graph, from).nearest(kind);
}

std::vector<std::pair<EndpointId, std::uint32_t>> RouteCache::next_hops(const SystemGraph& graph, EndpointId at,
                                                                        EndpointId to) {
  std::vector<std::pair<EndpointId, std::uint32_t>> out;
  const DestinationCosts& costs = costs_to(graph, to);
  if (at == to || costs.cost(at) == RouteTree::kUnreachable) return out;
  std::vector<NextHop> hops;
  simctl::next_hops(flat(graph), costs, at, to, hops);
  for (const NextHop& hop : hops) out.emplace_back(hop.part, hop.cable);
  return out;
}

const Path& RouteCache::route(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from,
                              EndpointId to, FabricRouting routing) {
  const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | to;
  if (auto it = paths_.find(key); it != paths_.end()) return it->second;
  if (auto own = route_via_own_nics(graph, cables, from, to, std::nullopt, routing, nullptr)) {
    return paths_.emplace(key, std::move(*own)).first->second;
  }
  if (routing == FabricRouting::by_destination && from != to) {
    return paths_.emplace(key, walk_by_destination(graph, cables, from, to, std::nullopt)).first->second;
  }
  RouteSearch& search = search_from(graph, from);
  if (search.cost(to) == RouteTree::kUnreachable) throw no_route(graph, from, to);
  Path path;
  for (EndpointId v = to; v != from;) {
    const Cable& cable = cables[search.via(v)];
    const EndpointId prev = other_end(cable, v);
    path.links.push_back(link_leaving(cable, prev));
    path.latency += cable.spec.latency;
    v = prev;
  }
  std::reverse(path.links.begin(), path.links.end());
  return paths_.emplace(key, std::move(path)).first->second;
}

const std::vector<NextHop>& RouteCache::hops_toward(const SystemGraph& graph, EndpointId at, EndpointId to,
                                                    const DestinationCosts& costs) {
  auto [it, added] = hops_.try_emplace((static_cast<std::uint64_t>(at) << 32) | to);
  if (added) simctl::next_hops(flat(graph), costs, at, to, it->second);
  return it->second;
}

Path RouteCache::walk_by_destination(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from,
                                     EndpointId to, std::optional<std::uint64_t> flow_key, bool* keyed) {
  const DestinationCosts& costs = costs_to(graph, to);
  if (costs.cost(from) == RouteTree::kUnreachable) throw no_route(graph, from, to);
  // The digits of the destination's index, lowest first, one per fabric
  // switch that has a choice (a system-level destination: its part id).
  const int node = graph[to].node;
  std::uint64_t digits = node == kNoNode ? to : static_cast<std::uint64_t>(node);
  return walk_least_cost(
      cables, from, to, [&](EndpointId at) -> const std::vector<NextHop>& { return hops_toward(graph, at, to, costs); },
      [&](EndpointId at, std::size_t choices) -> std::size_t {
        if (graph[at].node != kNoNode) {
          if (!flow_key) return 0;
          if (keyed) *keyed = true;
          return ecmp_pick(*flow_key, at, choices);
        }
        const std::size_t digit = digits % choices;
        digits /= choices;
        return digit;
      });
}

const Path& RouteCache::route_flow(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from,
                                   EndpointId to, std::uint64_t flow_key, FabricRouting routing) {
  const std::uint64_t pair = (static_cast<std::uint64_t>(from) << 32) | to;
  if (auto it = keyless_paths_.find(pair); it != keyless_paths_.end()) return *it->second;
  bool keyed = false;
  std::optional<Path> path = route_via_own_nics(graph, cables, from, to, flow_key, routing, &keyed);
  if (!path && routing == FabricRouting::by_destination) {
    path = walk_by_destination(graph, cables, from, to, flow_key, &keyed);
  } else if (!path) {
    // Costs *to* `to`: shared by every source that sends to it (a ring's
    // receivers are its senders).
    const DestinationCosts& costs = costs_to(graph, to);
    if (costs.cost(from) == RouteTree::kUnreachable) throw no_route(graph, from, to);
    path = walk_least_cost(
        cables, from, to,
        [&](EndpointId at) -> const std::vector<NextHop>& { return hops_toward(graph, at, to, costs); },
        [&](EndpointId at, std::size_t choices) {
          keyed = true;
          return ecmp_pick(flow_key, at, choices);
        });
  }
  std::deque<Path>& seen = ecmp_paths_[std::make_pair(from, to)];
  const Path* found = nullptr;
  for (const Path& p : seen) {
    if (p.links == path->links) {
      found = &p;
      break;
    }
  }
  if (!found) found = &seen.emplace_back(std::move(*path));
  if (!keyed) keyless_paths_.emplace(pair, found);
  return *found;
}

const std::optional<OwnNic>& RouteCache::own_nic(const SystemGraph& graph, EndpointId gpu) {
  auto it = own_nics_.find(gpu);
  if (it == own_nics_.end()) it = own_nics_.emplace(gpu, find_own_nic(flat(graph), graph, gpu)).first;
  return it->second;
}

std::optional<Path> RouteCache::route_via_own_nics(const SystemGraph& graph, const std::vector<Cable>& cables,
                                                   EndpointId from, EndpointId to,
                                                   std::optional<std::uint64_t> flow_key, FabricRouting routing,
                                                   bool* keyed) {
  const OwnNic* in = arriving_own_nic(graph, from, to);
  if (!in) return std::nullopt;
  const std::optional<OwnNic>& out = own_nic(graph, from);
  Path path;
  auto cross = [&](std::uint32_t cable, EndpointId& at) {
    path.links.push_back(link_leaving(cables[cable], at));
    path.latency += cables[cable].spec.latency;
    at = other_end(cables[cable], at);
  };
  EndpointId at = from;
  for (std::uint32_t cable : out->cables) cross(cable, at);
  cross(out->fabric_cable, at);
  if (at != in->fabric) {
    // Leaves the fabric cannot join (separate planes, rails without spines)
    // leave the route to plain least cost, which may cross a node to another NIC.
    if (outside_tree(in->fabric)[at] == RouteTree::kUnreachable) return std::nullopt;
    std::uint64_t digits = static_cast<std::uint64_t>(graph[to].node);
    std::vector<NextHop>& fabric = fabric_scratch_;
    while (at != in->fabric) {
      fabric_hops(at, in->fabric, hops_scratch_, fabric);
      if (fabric.empty()) return std::nullopt;  // every least-cost way passes through a node
      std::size_t pick = 0;
      if (fabric.size() > 1 && routing == FabricRouting::by_destination) {
        pick = digits % fabric.size();
        digits /= fabric.size();
      } else if (fabric.size() > 1 && flow_key) {
        pick = ecmp_pick(*flow_key, at, fabric.size());
        if (keyed) *keyed = true;
      }
      cross(fabric[pick].cable, at);
    }
  }
  cross(in->fabric_cable, at);
  for (auto it = in->cables.rbegin(); it != in->cables.rend(); ++it) cross(*it, at);
  return path;
}

const OwnNic* RouteCache::arriving_own_nic(const SystemGraph& graph, EndpointId from, EndpointId to) {
  if (graph[from].kind != PartKind::gpu || graph[to].kind != PartKind::gpu || graph[from].node == graph[to].node)
    return nullptr;
  if (!own_nic(graph, from)) return nullptr;
  const std::optional<OwnNic>& in = own_nic(graph, to);
  return in ? &*in : nullptr;
}

void RouteCache::fabric_hops(EndpointId at, EndpointId leaf, std::vector<NextHop>& hops, std::vector<NextHop>& fabric) {
  // Costs to the arriving NIC's leaf are that leaf's whole-graph tree, the
  // one destination costs already keep for the nodes behind it. Only the
  // fabric's hops: a route between two leaves never detours through a node's
  // NICs and PCIe switch, though one may tie.
  const std::vector<std::int32_t>& tree = outside_tree(leaf);
  next_hops_by(
      *flat_, [&](EndpointId v) { return tree[v]; }, at, leaf, hops);
  fabric.clear();
  for (const NextHop& hop : hops) {
    if (flat_->node[hop.part] == kNoNode) fabric.push_back(hop);
  }
}

std::size_t RouteCache::choices(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from,
                                EndpointId at, EndpointId to) {
  // Counted the way the route is walked: an own-NIC route only where one exists.
  const OwnNic* in = arriving_own_nic(graph, from, to);
  if (!in || !route_via_own_nics(graph, cables, from, to, std::nullopt, FabricRouting::ecmp, nullptr))
    return next_hops(graph, at, to).size();
  if (graph[at].node != kNoNode || at == in->fabric) return 1;
  std::vector<NextHop> hops, fabric;
  fabric_hops(at, in->fabric, hops, fabric);
  return fabric.size();
}

}  // namespace simctl
