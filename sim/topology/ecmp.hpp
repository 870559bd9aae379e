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

// Walks from `from` to `to`, taking at each part the next hop ecmp_pick
// chooses among `hops_at(part)` (next_hops). `from` must reach `to`.
template <class HopsAt>
Path ecmp_walk(const std::vector<Cable>& cables, EndpointId from, EndpointId to, std::uint64_t flow_key,
               HopsAt&& hops_at) {
  Path path;
  for (EndpointId at = from; at != to;) {
    // Costs fall strictly along a least-cost route, so a reached part always
    // has a next hop and the walk ends.
    const std::vector<NextHop>& hops = hops_at(at);
    const NextHop& pick = hops[ecmp_pick(flow_key, at, hops.size())];
    const Cable& cable = cables[pick.cable];
    path.links.push_back(link_leaving(cable, at));
    path.latency += cable.spec.latency;
    at = pick.part;
  }
  return path;
}

}  // namespace simctl
