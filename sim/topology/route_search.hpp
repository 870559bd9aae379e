#pragma once
// A least-cost search from one root that goes only as far as a question
// needs, and answers exactly what the whole tree (build_route_tree) would:
// the same costs, and the same cable into each part among equal-cost ones.
//
// Dial's algorithm expands costs in increasing order, and within one cost in
// the order parts were reached; once every cost below c is expanded, every
// part reachable at cost c or less has its final cost and its final cable
// (later expansions only reach parts at higher costs). So a route to a
// GPU in the same node (cost 2 over NVLink) touches a dozen parts, not the
// cluster's 80,000, and the workspace is reset by the parts touched, not by
// its size. Parts that cannot forward (GPUs, DRAM, storage) are never
// expanded; their cost is their cheapest forwarding neighbour's plus one
// step, the first declared cable on ties, as the whole tree attaches them.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/topology/route_graph.hpp"
#include "sim/topology/routing.hpp"

namespace simctl {

class RouteSearch {
 public:
  explicit RouteSearch(const RouteGraph& graph);

  // `region`: a node index to search inside only (its cables to other parts
  // ignored), or kNoNode for the whole graph.
  void restart(EndpointId root, int region = kNoNode);
  EndpointId root() const { return root_; }
  // The least cost from the root to `v` (RouteTree::kUnreachable if none).
  std::int32_t cost(EndpointId v);
  // The cable `v` is reached by on the first declared least-cost route
  // (RouteTree::kNoCable for the root); valid where cost(v) is reachable.
  std::uint32_t via(EndpointId v);
  // The part of `kind` other than the root cheapest to reach (ties: lowest id).
  std::optional<EndpointId> nearest(PartKind kind);
  // Expands everything: cost() and via() then look nothing up.
  void finish();

 private:
  static constexpr std::int32_t kUnreachable = RouteTree::kUnreachable;
  bool inside(EndpointId v) const { return region_ == kNoNode || graph_.node[v] == region_; }
  bool may_forward(EndpointId v) const { return v == root_ || graph_.forwards[v] != 0; }
  int step_from(EndpointId v) const { return 1 + (v == root_ ? 0 : graph_.penalty[v]); }
  bool exhausted() const { return bound_ >= buckets_.size(); }
  void reach(EndpointId v, std::int32_t cost, std::uint32_t cable);
  bool expand_bucket();
  // An endpoint's cost from its neighbours whose costs are final, and the cable.
  std::int32_t endpoint_cost(EndpointId v, std::uint32_t* cable) const;

  const RouteGraph& graph_;
  int region_ = kNoNode;
  EndpointId root_ = 0;
  std::size_t bound_ = 0;  // buckets below it are expanded
  std::vector<std::int32_t> cost_;
  std::vector<std::uint32_t> via_;
  std::vector<std::uint8_t> seen_;   // touched: reached, or an endpoint next to an expanded part
  std::vector<EndpointId> touched_;  // to reset, and nearest()'s candidates
  std::vector<std::vector<EndpointId>> buckets_;
};

// The whole tree from `root`, as build_route_tree(SystemGraph, root) gives it.
RouteTree build_route_tree(const RouteGraph& graph, EndpointId root);

}  // namespace simctl
