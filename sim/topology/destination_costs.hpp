#pragma once
// The least cost from every part to one destination, without a tree of the
// destination's own: what ECMP asks at every hop of a flow's path.
//
// A whole tree per destination GPU is ~80,000 costs on a 16,384-GPU cluster,
// and every GPU is some flow's destination (10 GB, two minutes to build).
// A node's GPUs, though, reach the rest of the cluster only through the
// node's boundary cables (its NICs' cables to the leaf switches). A least-cost
// route from destination t (in node A) to a part v either stays inside A, or
// leaves A for the first time over some boundary cable b -> s; before it, it
// is a least-cost route inside A from t to b, after it one from s to v in the
// whole graph. So
//
//   cost(t, v) = min( cost inside A (t, v)                          [v in A]
//                     min over exits (b, s):
//                       cost inside A (t, b) + penalty(b) + 1 + penalty(s) + cost(s, v) )
//
// (routing.hpp's costs; a part's penalty counts when a route passes through
// it, not when it starts or ends there; b and s must be able to forward
// unless the route starts at b or ends at s). Every term is a real route and
// the true least-cost route is one of them, so the minimum is exact. The
// trees cost(s, .) are rooted at the parts nodes lead out to: 512 leaf
// switches for 2048 nodes, shared by every GPU behind them.
#include <cstdint>
#include <functional>
#include <vector>

#include "sim/topology/route_graph.hpp"
#include "sim/topology/routing.hpp"

namespace simctl {

class RouteSearch;

class DestinationCosts {
 public:
  // The costs to `to`, a part of a node; `outside_tree(s)` gives the
  // whole-graph costs from s (kept by the caller, alive as long as this
  // object); `workspace` searches inside the node. A destination in no node
  // is answered from `whole` alone.
  using OutsideTree = std::function<const std::vector<std::int32_t>&(EndpointId)>;
  DestinationCosts(const RouteGraph& graph, EndpointId to, const OutsideTree& outside_tree, RouteSearch& workspace);
  explicit DestinationCosts(std::vector<std::int32_t> whole) : whole_(std::move(whole)) {}

  std::int32_t cost(EndpointId v) const {
    if (!whole_.empty()) return whole_[v];
    std::int32_t best = RouteTree::kUnreachable;
    if (graph_->node[v] == node_) best = inside_[graph_->index_in_node[v]];
    for (const Exit& exit : exits_) {
      const std::int32_t beyond = (*exit.from_outside)[v];
      if (beyond == RouteTree::kUnreachable) continue;
      std::int32_t c;
      if (v == exit.outside) {
        c = exit.to_outside;
      } else if (!exit.outside_forwards) {
        continue;
      } else {
        c = exit.to_outside + exit.outside_penalty + beyond;
      }
      if (best == RouteTree::kUnreachable || c < best) best = c;
    }
    return best;
  }

 private:
  struct Exit {
    EndpointId outside = 0;
    std::int32_t to_outside = 0;  // cost from the destination to `outside`, leaving the node there
    std::int32_t outside_penalty = 0;
    bool outside_forwards = false;
    const std::vector<std::int32_t>* from_outside = nullptr;
  };
  const RouteGraph* graph_ = nullptr;
  int node_ = kNoNode;
  std::vector<std::int32_t> inside_;  // by index_in_node
  std::vector<Exit> exits_;
  std::vector<std::int32_t> whole_;
};

// Whole-graph costs from `root` (build_route_tree's, without the cables).
std::vector<std::int32_t> route_costs(const RouteGraph& graph, EndpointId root);

}  // namespace simctl
