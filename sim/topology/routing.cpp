#include "sim/topology/routing.hpp"

#include <algorithm>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/filtered_graph.hpp>
#include <stdexcept>

namespace simctl {
namespace {

// Keeps the vertices a route may pass through, plus the source itself (a GPU
// may start a route even though it may not forward one).
struct ForwardingOrSource {
  const SystemGraph* graph = nullptr;
  EndpointId source = 0;
  bool operator()(SystemGraph::vertex_descriptor v) const { return v == source || can_transit((*graph)[v].kind); }
};

class TreeRecorder : public boost::default_bfs_visitor {
 public:
  explicit TreeRecorder(RouteTree* tree) : tree_(tree) {}
  template <class Edge, class Graph>
  void tree_edge(Edge e, const Graph& g) const {
    const auto from = boost::source(e, g);
    const auto to = boost::target(e, g);
    tree_->hops[to] = tree_->hops[from] + 1;
    tree_->via[to] = e;
  }

 private:
  RouteTree* tree_;
};

// A vertex that cannot forward was left out of the search; it is reached
// through its nearest reached neighbour (first declared cable on ties).
void attach_endpoint(const SystemGraph& graph, RouteTree& tree, EndpointId v, EndpointId source) {
  for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph))) {
    const auto n = boost::target(e, graph);
    const bool may_precede = n == source || can_transit(graph[n].kind);
    if (!may_precede || tree.hops[n] == RouteTree::kUnreachable) continue;
    const int hops = tree.hops[n] + 1;
    if (tree.hops[v] == RouteTree::kUnreachable || hops < tree.hops[v]) {
      tree.hops[v] = hops;
      tree.via[v] = e;
    }
  }
}

EndpointId other_end(const SystemGraph& graph, const CableEdge& e, EndpointId v) {
  const auto s = boost::source(e, graph);
  return s == v ? static_cast<EndpointId>(boost::target(e, graph)) : static_cast<EndpointId>(s);
}

}  // namespace

RouteTree build_route_tree(const SystemGraph& graph, EndpointId source) {
  const auto n = boost::num_vertices(graph);
  RouteTree tree{std::vector<int>(n, RouteTree::kUnreachable), std::vector<std::optional<CableEdge>>(n)};
  tree.hops[source] = 0;
  boost::filtered_graph<SystemGraph, boost::keep_all, ForwardingOrSource> view(graph, boost::keep_all{},
                                                                               ForwardingOrSource{&graph, source});
  boost::breadth_first_search(view, source, boost::visitor(TreeRecorder(&tree)));
  std::vector<EndpointId> left_out;
  for (EndpointId v = 0; v < n; ++v) {
    if (v != source && !can_transit(graph[v].kind)) left_out.push_back(v);
  }
  // Attached after the search, and only to forwarders or the source, so
  // that one endpoint never becomes another's way in.
  for (EndpointId v : left_out) attach_endpoint(graph, tree, v, source);
  return tree;
}

const RouteTree& RouteCache::tree(const SystemGraph& graph, EndpointId source) {
  auto it = trees_.find(source);
  if (it == trees_.end()) it = trees_.emplace(source, build_route_tree(graph, source)).first;
  return it->second;
}

bool RouteCache::reachable(const SystemGraph& graph, EndpointId from, EndpointId to) {
  return tree(graph, from).hops.at(to) != RouteTree::kUnreachable;
}

const Path& RouteCache::route(const SystemGraph& graph, EndpointId from, EndpointId to) {
  const auto key = std::make_pair(from, to);
  if (auto it = paths_.find(key); it != paths_.end()) return it->second;
  const RouteTree& t = tree(graph, from);
  if (t.hops.at(to) == RouteTree::kUnreachable) {
    throw std::invalid_argument("no route from '" + graph[from].name + "' to '" + graph[to].name + "'");
  }
  Path path;
  for (EndpointId v = to; v != from;) {
    const CableEdge& e = *t.via[v];
    const Cable& cable = graph[e];
    const EndpointId prev = other_end(graph, e, v);
    path.links.push_back(link_leaving(cable, prev));
    path.latency += cable.spec.latency;
    v = prev;
  }
  std::reverse(path.links.begin(), path.links.end());
  return paths_.emplace(key, std::move(path)).first->second;
}

}  // namespace simctl
