#include "sim/topology/routing.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/topology/ecmp.hpp"

namespace simctl {
namespace {

EndpointId other_end(const Cable& cable, EndpointId v) { return cable.a == v ? cable.b : cable.a; }

// Dial's algorithm: costs are small integers, so a list per cost replaces a
// heap, and within one cost vertices are expanded in the order reached,
// which keeps ties in declaration order (plain BFS when no CPU is crossed).
class TreeBuilder {
 public:
  TreeBuilder(const SystemGraph& graph, EndpointId root)
      : graph_(graph),
        root_(root),
        tree_{std::vector<std::int32_t>(boost::num_vertices(graph), RouteTree::kUnreachable),
              std::vector<std::uint32_t>(boost::num_vertices(graph), RouteTree::kNoCable)},
        forwards_(boost::num_vertices(graph)),
        penalty_(boost::num_vertices(graph)) {
    // Read once per vertex into flat arrays: the search asks them on every
    // edge, and a Part (names and all) is a cache miss each time.
    for (EndpointId v = 0; v < forwards_.size(); ++v) {
      forwards_[v] = v == root_ || can_transit(graph_[v].kind);
      penalty_[v] = static_cast<std::uint8_t>(transit_penalty(graph_[v]));
    }
  }

  RouteTree build() {
    reach(root_, 0, RouteTree::kNoCable);
    for (std::size_t cost = 0; cost < buckets_.size(); ++cost) {
      for (std::size_t i = 0; i < buckets_[cost].size(); ++i) {
        const EndpointId v = buckets_[cost][i];
        if (tree_.cost[v] == static_cast<std::int32_t>(cost)) expand(v);  // else a stale entry
      }
    }
    attach_endpoints();
    return std::move(tree_);
  }

 private:
  // The root may start a route even when it cannot forward one (a GPU).
  bool may_forward(EndpointId v) const { return forwards_[v] != 0; }
  int step_from(EndpointId v) const { return 1 + (v == root_ ? 0 : penalty_[v]); }

  void reach(EndpointId v, std::int32_t cost, std::uint32_t cable) {
    tree_.cost[v] = cost;
    tree_.via[v] = cable;
    if (buckets_.size() <= static_cast<std::size_t>(cost)) buckets_.resize(cost + 1);
    buckets_[cost].push_back(v);
  }

  void expand(EndpointId v) {
    const std::int32_t cost = tree_.cost[v] + step_from(v);
    for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph_))) {
      const auto n = static_cast<EndpointId>(boost::target(e, graph_));
      if (!may_forward(n)) continue;  // endpoints are attached after the search
      if (tree_.cost[n] == RouteTree::kUnreachable || cost < tree_.cost[n]) reach(n, cost, graph_[e].index);
    }
  }

  // A vertex that cannot forward is reached through its cheapest reached
  // neighbour (first declared cable on ties); attached only after the
  // search, and only to forwarders or the root, so that one endpoint never
  // becomes another's way in.
  void attach_endpoints() {
    for (EndpointId v = 0; v < tree_.cost.size(); ++v) {
      if (may_forward(v)) continue;
      for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph_))) {
        const auto n = static_cast<EndpointId>(boost::target(e, graph_));
        if (!may_forward(n) || tree_.cost[n] == RouteTree::kUnreachable) continue;
        const std::int32_t cost = tree_.cost[n] + step_from(n);
        if (tree_.cost[v] == RouteTree::kUnreachable || cost < tree_.cost[v]) {
          tree_.cost[v] = cost;
          tree_.via[v] = graph_[e].index;
        }
      }
    }
  }

  const SystemGraph& graph_;
  EndpointId root_;
  RouteTree tree_;
  std::vector<std::uint8_t> forwards_;  // per vertex: may_forward
  std::vector<std::uint8_t> penalty_;   // per vertex: transit_penalty
  std::vector<std::vector<EndpointId>> buckets_;
};

std::invalid_argument no_route(const SystemGraph& graph, EndpointId from, EndpointId to) {
  return std::invalid_argument("no route from '" + graph[from].name + "' to '" + graph[to].name + "'");
}

}  // namespace

int transit_penalty(const Part& v) { return v.kind == PartKind::cpu_socket ? kCpuTransitPenalty : 0; }

RouteTree build_route_tree(const SystemGraph& graph, EndpointId root) { return TreeBuilder(graph, root).build(); }

const RouteTree& RouteCache::tree(const SystemGraph& graph, EndpointId root) {
  auto it = trees_.find(root);
  if (it == trees_.end()) it = trees_.emplace(root, build_route_tree(graph, root)).first;
  return it->second;
}

bool RouteCache::reachable(const SystemGraph& graph, EndpointId from, EndpointId to) {
  return tree(graph, from).cost.at(to) != RouteTree::kUnreachable;
}

const Path& RouteCache::route(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from,
                              EndpointId to) {
  const std::uint64_t key = (static_cast<std::uint64_t>(from) << 32) | to;
  if (auto it = paths_.find(key); it != paths_.end()) return it->second;
  const RouteTree& t = tree(graph, from);
  if (t.cost.at(to) == RouteTree::kUnreachable) throw no_route(graph, from, to);
  Path path;
  for (EndpointId v = to; v != from;) {
    const Cable& cable = cables[t.via[v]];
    const EndpointId prev = other_end(cable, v);
    path.links.push_back(link_leaving(cable, prev));
    path.latency += cable.spec.latency;
    v = prev;
  }
  std::reverse(path.links.begin(), path.links.end());
  return paths_.emplace(key, std::move(path)).first->second;
}

const Path& RouteCache::route_flow(const SystemGraph& graph, EndpointId from, EndpointId to, std::uint64_t flow_key) {
  // Costs *to* `to`: the tree rooted there, shared by every source that
  // sends to it (a ring's receivers are its senders, so no extra trees).
  const RouteTree& t = tree(graph, to);
  if (t.cost.at(from) == RouteTree::kUnreachable) throw no_route(graph, from, to);
  Path path = ecmp_path(graph, t, from, to, flow_key);
  std::deque<Path>& seen = ecmp_paths_[std::make_pair(from, to)];
  for (const Path& p : seen) {
    if (p.links == path.links) return p;
  }
  return seen.emplace_back(std::move(path));
}

}  // namespace simctl
