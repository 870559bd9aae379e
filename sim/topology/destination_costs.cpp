#include "sim/topology/destination_costs.hpp"

#include "sim/topology/route_search.hpp"

namespace simctl {

DestinationCosts::DestinationCosts(const RouteGraph& graph, EndpointId to, const OutsideTree& outside_tree,
                                   RouteSearch& workspace)
    : graph_(&graph), node_(graph.node[to]) {
  const auto& parts = graph.node_parts[static_cast<std::size_t>(node_)];
  RouteSearch& inside = workspace;
  inside.restart(to, node_);
  inside.finish();
  inside_.reserve(parts.size());
  for (EndpointId v : parts) inside_.push_back(inside.cost(v));
  for (const RouteGraph::Exit& exit : graph.node_exits[static_cast<std::size_t>(node_)]) {
    const std::int32_t to_inside = inside_[graph.index_in_node[exit.inside]];
    if (to_inside == RouteTree::kUnreachable) continue;
    if (exit.inside != to && !graph.forwards[exit.inside]) continue;  // a route cannot pass through it
    Exit e;
    e.outside = exit.outside;
    e.to_outside = to_inside + (exit.inside == to ? 0 : graph.penalty[exit.inside]) + 1;
    e.outside_penalty = graph.penalty[exit.outside];
    e.outside_forwards = graph.forwards[exit.outside] != 0;
    e.from_outside = &outside_tree(exit.outside);
    exits_.push_back(e);
  }
}

std::vector<std::int32_t> route_costs(const RouteGraph& graph, EndpointId root) {
  RouteSearch search(graph);
  search.restart(root);
  search.finish();
  std::vector<std::int32_t> costs(graph.size());
  for (EndpointId v = 0; v < graph.size(); ++v) costs[v] = search.cost(v);
  return costs;
}

}  // namespace simctl
