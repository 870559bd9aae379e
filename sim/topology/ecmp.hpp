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

// Which of `choices` next hops a flow takes at part `at`: a hash of
// (flow_key, at), deterministic per key, and independent from hop to hop, as
// different switches hash with different seeds.
std::size_t ecmp_pick(std::uint64_t flow_key, EndpointId at, std::size_t choices);

// Walks from `from` to `to` along least-cost next hops (`hops_at(part)`,
// next_hops), taking where there are several the one `pick(part, count)`
// returns the index of. `from` must reach `to`.
template <class HopsAt, class Pick>
Path walk_least_cost(const std::vector<Cable>& cables, EndpointId from, EndpointId to, HopsAt&& hops_at, Pick&& pick) {
  Path path;
  for (EndpointId at = from; at != to;) {
    // Costs fall strictly along a least-cost route, so a reached part always
    // has a next hop and the walk ends.
    const std::vector<NextHop>& hops = hops_at(at);
    const NextHop& next = hops[hops.size() == 1 ? 0 : pick(at, hops.size())];
    const Cable& cable = cables[next.cable];
    path.links.push_back(link_leaving(cable, at));
    path.latency += cable.spec.latency;
    at = next.part;
  }
  return path;
}

}  // namespace simctl
