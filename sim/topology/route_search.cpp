#include "sim/topology/route_search.hpp"

namespace simctl {

RouteSearch::RouteSearch(const RouteGraph& graph)
    : graph_(graph),
      cost_(graph.size(), kUnreachable),
      via_(graph.size(), RouteTree::kNoCable),
      seen_(graph.size(), 0) {}

void RouteSearch::restart(EndpointId root, int region) {
  for (EndpointId v : touched_) {
    cost_[v] = kUnreachable;
    via_[v] = RouteTree::kNoCable;
    seen_[v] = 0;
  }
  touched_.clear();
  for (auto& bucket : buckets_) bucket.clear();
  bound_ = 0;
  root_ = root;
  region_ = region;
  reach(root, 0, RouteTree::kNoCable);
}

void RouteSearch::reach(EndpointId v, std::int32_t cost, std::uint32_t cable) {
  if (!seen_[v]) seen_[v] = 1, touched_.push_back(v);
  cost_[v] = cost;
  via_[v] = cable;
  if (buckets_.size() <= static_cast<std::size_t>(cost)) buckets_.resize(static_cast<std::size_t>(cost) + 1);
  buckets_[static_cast<std::size_t>(cost)].push_back(v);
}

// Expands bucket bound_ (skipping stale entries), as TreeBuilder::build does.
bool RouteSearch::expand_bucket() {
  if (exhausted()) return false;
  const auto cost = static_cast<std::int32_t>(bound_);
  // Indexed afresh each time: reach() may grow buckets_ and move them.
  for (std::size_t i = 0; i < buckets_[bound_].size(); ++i) {
    const EndpointId v = buckets_[bound_][i];
    if (cost_[v] != cost) continue;
    const std::int32_t next = cost + step_from(v);
    for (std::uint32_t e = graph_.first[v]; e < graph_.first[v + 1]; ++e) {
      const EndpointId n = graph_.neighbour[e];
      if (!inside(n)) continue;
      if (!may_forward(n)) {  // attached after the search, as an endpoint
        if (!seen_[n]) seen_[n] = 1, touched_.push_back(n);
        continue;
      }
      if (cost_[n] == kUnreachable || next < cost_[n]) reach(n, next, graph_.cable[e]);
    }
  }
  ++bound_;
  return true;
}

// Neighbours with a cost at most bound_ are final (all cheaper buckets are
// expanded), and any other gives more than bound_ + 1: a value up to
// bound_ + 1 is the endpoint's final cost and cable.
std::int32_t RouteSearch::endpoint_cost(EndpointId v, std::uint32_t* cable) const {
  std::int32_t best = kUnreachable;
  for (std::uint32_t e = graph_.first[v]; e < graph_.first[v + 1]; ++e) {
    const EndpointId n = graph_.neighbour[e];
    if (!inside(n) || !may_forward(n)) continue;
    const std::int32_t c = cost_[n];
    if (c == kUnreachable || static_cast<std::size_t>(c) > bound_) continue;
    const std::int32_t through = c + step_from(n);
    if (best == kUnreachable || through < best) {
      best = through;
      if (cable) *cable = graph_.cable[e];
    }
  }
  return best;
}

std::int32_t RouteSearch::cost(EndpointId v) {
  if (v == root_) return 0;
  if (!inside(v)) return kUnreachable;
  if (may_forward(v)) {
    while ((cost_[v] == kUnreachable || static_cast<std::size_t>(cost_[v]) > bound_) && expand_bucket()) {
    }
    return cost_[v];
  }
  for (;;) {
    const std::int32_t c = endpoint_cost(v, nullptr);
    if (c != kUnreachable && static_cast<std::size_t>(c) <= bound_ + 1) return c;
    if (!expand_bucket()) return c;
  }
}

std::uint32_t RouteSearch::via(EndpointId v) {
  if (v == root_ || cost(v) == kUnreachable) return RouteTree::kNoCable;
  if (may_forward(v)) return via_[v];
  std::uint32_t cable = RouteTree::kNoCable;
  endpoint_cost(v, &cable);
  return cable;
}

// Every part at cost bound_ or less is among the touched with its final
// cost, so the cheapest candidate there is the cheapest anywhere.
std::optional<EndpointId> RouteSearch::nearest(PartKind kind) {
  for (;;) {
    std::optional<EndpointId> best;
    std::int32_t best_cost = kUnreachable;
    for (EndpointId v : touched_) {
      if (v == root_ || graph_.kind[v] != kind) continue;
      const std::int32_t c = may_forward(v) ? cost_[v] : endpoint_cost(v, nullptr);
      if (c == kUnreachable || (!exhausted() && static_cast<std::size_t>(c) > bound_)) continue;
      if (!best || c < best_cost || (c == best_cost && v < *best)) best = v, best_cost = c;
    }
    if (best || !expand_bucket()) return best;
  }
}

void RouteSearch::finish() {
  while (expand_bucket()) {
  }
}

RouteTree build_route_tree(const RouteGraph& graph, EndpointId root) {
  RouteSearch search(graph);
  search.restart(root);
  search.finish();
  RouteTree tree{std::vector<std::int32_t>(graph.size(), RouteTree::kUnreachable),
                 std::vector<std::uint32_t>(graph.size(), RouteTree::kNoCable)};
  for (EndpointId v = 0; v < graph.size(); ++v) {
    tree.cost[v] = search.cost(v);
    tree.via[v] = search.via(v);
  }
  return tree;
}

}  // namespace simctl
