#include "sim/topology/route_graph.hpp"

#include "sim/topology/routing.hpp"

namespace simctl {

RouteGraph::RouteGraph(const SystemGraph& graph) {
  const std::size_t parts = boost::num_vertices(graph);
  first.reserve(parts + 1);
  forwards.resize(parts);
  penalty.resize(parts);
  kind.resize(parts);
  node.resize(parts);
  index_in_node.assign(parts, 0);
  for (EndpointId v = 0; v < parts; ++v) {
    const Part& part = graph[v];
    forwards[v] = can_transit(part.kind) ? 1 : 0;
    penalty[v] = static_cast<std::uint8_t>(transit_penalty(part));
    kind[v] = part.kind;
    node[v] = part.node;
    first.push_back(static_cast<std::uint32_t>(neighbour.size()));
    for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph))) {
      neighbour.push_back(static_cast<EndpointId>(boost::target(e, graph)));
      cable.push_back(graph[e].index);
    }
    if (part.node < 0) continue;
    const auto n = static_cast<std::size_t>(part.node);
    if (node_parts.size() <= n) node_parts.resize(n + 1), node_exits.resize(n + 1);
    index_in_node[v] = static_cast<std::uint32_t>(node_parts[n].size());
    node_parts[n].push_back(v);
  }
  first.push_back(static_cast<std::uint32_t>(neighbour.size()));
  for (std::size_t n = 0; n < node_parts.size(); ++n) {
    for (EndpointId v : node_parts[n]) {
      for (std::uint32_t i = first[v]; i < first[v + 1]; ++i) {
        if (node[neighbour[i]] != static_cast<int>(n)) node_exits[n].push_back({v, neighbour[i], cable[i]});
      }
    }
  }
}

}  // namespace simctl
