#include "sim/topology/reachability.hpp"

#include <algorithm>

namespace simctl {
namespace {

constexpr std::size_t kNumKinds = static_cast<std::size_t>(PartKind::storage) + 1;

EndpointId other(const SystemGraph& g, const CableEdge& e, EndpointId v) {
  const auto s = static_cast<EndpointId>(boost::source(e, g));
  return s == v ? static_cast<EndpointId>(boost::target(e, g)) : s;
}

}  // namespace

EndpointId Reachability::find(EndpointId v) const {
  while (parent_[v] != v) {
    parent_[v] = parent_[parent_[v]];
    v = parent_[v];
  }
  return v;
}

Reachability::Reachability(const SystemGraph& graph)
    : graph_(graph), parent_(boost::num_vertices(graph)), enters_(boost::num_vertices(graph)) {
  const auto n = boost::num_vertices(graph);
  for (EndpointId v = 0; v < n; ++v) parent_[v] = v;
  for (const auto& e : boost::make_iterator_range(boost::edges(graph))) {
    const auto a = static_cast<EndpointId>(boost::source(e, graph));
    const auto b = static_cast<EndpointId>(boost::target(e, graph));
    if (can_transit(graph[a].kind) && can_transit(graph[b].kind)) parent_[find(a)] = find(b);
  }
  kind_count_.assign(n, std::vector<int>(kNumKinds, 0));
  for (EndpointId v = 0; v < n; ++v) {
    auto& roots = enters_[v];
    if (can_transit(graph[v].kind)) roots.push_back(find(v));
    for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph))) {
      const EndpointId w = other(graph, e, v);
      if (can_transit(graph[w].kind)) roots.push_back(find(w));
    }
    std::sort(roots.begin(), roots.end());
    roots.erase(std::unique(roots.begin(), roots.end()), roots.end());
    for (EndpointId r : roots) ++kind_count_[r][static_cast<std::size_t>(graph[v].kind)];
  }
}

bool Reachability::adjacent_kind(EndpointId v, PartKind kind) const {
  for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph_))) {
    if (graph_[other(graph_, e, v)].kind == kind) return true;
  }
  return false;
}

bool Reachability::reaches(EndpointId a, EndpointId b) const {
  if (a == b || boost::edge(a, b, graph_).second) return true;
  const auto& x = enters_[a];
  const auto& y = enters_[b];
  std::vector<EndpointId> both;
  std::set_intersection(x.begin(), x.end(), y.begin(), y.end(), std::back_inserter(both));
  return !both.empty();
}

bool Reachability::reaches_kind(EndpointId v, PartKind kind) const {
  if (adjacent_kind(v, kind)) return true;
  const int self = graph_[v].kind == kind ? 1 : 0;  // v counts once in each component it enters
  for (EndpointId r : enters_[v]) {
    if (kind_count_[r][static_cast<std::size_t>(kind)] > self) return true;
  }
  return false;
}

std::vector<std::vector<std::string>> Reachability::gpu_less_loops() const {
  const auto n = boost::num_vertices(graph_);
  std::vector<std::vector<std::string>> members(n);
  std::vector<std::size_t> cables(n, 0);
  for (EndpointId v = 0; v < n; ++v) {
    if (can_transit(graph_[v].kind)) members[find(v)].push_back(graph_[v].name);
  }
  for (const auto& e : boost::make_iterator_range(boost::edges(graph_))) {
    const auto a = static_cast<EndpointId>(boost::source(e, graph_));
    if (can_transit(graph_[a].kind) && can_transit(graph_[boost::target(e, graph_)].kind)) ++cables[find(a)];
  }
  std::vector<std::vector<std::string>> out;
  for (EndpointId r = 0; r < n; ++r) {
    const bool no_gpu = kind_count_[r][static_cast<std::size_t>(PartKind::gpu)] == 0;
    // A connected piece with at least as many cables as parts has a cycle.
    if (!members[r].empty() && no_gpu && cables[r] >= members[r].size()) out.push_back(members[r]);
  }
  return out;
}

}  // namespace simctl
