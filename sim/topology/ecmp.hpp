#pragma once
// Equal-cost multi-path: the path one flow takes when several are equally
// cheap (see routing.hpp for the cost).
#include <cstdint>
#include <vector>

#include "sim/topology/destination_costs.hpp"
#include "sim/topology/route_graph.hpp"

namespace simctl {

// The neighbours of `at` that lie on a least-cost route to `to`, with the
// cable to each, in declaration order.
struct NextHop {
  EndpointId part;
  std::uint32_t cable;
};
void next_hops(const RouteGraph& graph, const DestinationCosts& to_costs, EndpointId at, EndpointId to,
               std::vector<NextHop>& out);

// Walks from `from` to `to`, picking at each part one of next_hops by a
// hash of (flow_key, part): deterministic per key, and independent from hop
// to hop, as different switches hash with different seeds. `from` must
// reach `to`.
Path ecmp_path(const RouteGraph& graph, const std::vector<Cable>& cables, const DestinationCosts& to_costs,
               EndpointId from, EndpointId to, std::uint64_t flow_key);

}  // namespace simctl
