#pragma once
// Equal-cost multi-path: the path one flow takes when several are equally
// cheap (see routing.hpp for the cost).
#include <cstdint>
#include <vector>

#include "sim/topology/routing.hpp"

namespace simctl {

// The neighbours of `at` that lie on a least-cost route to the root of
// `to_tree`, with the cable to each, in declaration order.
struct NextHop {
  EndpointId part;
  CableEdge cable;
};
std::vector<NextHop> next_hops(const SystemGraph& graph, const RouteTree& to_tree, EndpointId at, EndpointId to);

// Walks from `from` to `to` (the root of `to_tree`), picking at each part
// one of next_hops by a hash of (flow_key, part): deterministic per key, and
// independent from hop to hop, as different switches hash with different
// seeds. `from` must reach `to`.
Path ecmp_path(const SystemGraph& graph, const RouteTree& to_tree, EndpointId from, EndpointId to,
               std::uint64_t flow_key);

}  // namespace simctl
