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
// The same for any cost to `to`: `cost(part)`, RouteTree::kUnreachable where
// `to` cannot be reached.
template <class Cost>
void next_hops_by(const RouteGraph& graph, Cost&& cost, EndpointId at, EndpointId to, std::vector<NextHop>& out) {
  out.clear();
  const std::int32_t here = cost(at);
  for (std::uint32_t e = graph.first[at]; e < graph.first[at + 1]; ++e) {
    const EndpointId n = graph.neighbour[e];
    if (n != to && !graph.forwards[n]) continue;
    const std::int32_t there = cost(n);
    if (there == RouteTree::kUnreachable) continue;
    // Passing through n costs its penalty; arriving at `to` costs none.
    const int through = 1 + (n == to ? 0 : graph.penalty[n]);
    if (there + through == here) out.push_back({n, graph.cable[e]});
  }
}

// Which of `choices` next hops a flow takes at part `at`: a hash of
// (flow_key, at), deterministic per key, and independent from hop to hop, as
// different switches hash with different seeds.
std::size_t ecmp_pick(std::uint64_t flow_key, EndpointId at, std::size_t choices);

// The flow key queue pair `q` of the connection from `from` to `to` hashes
// with. A connection's queue pairs are created once, when NCCL connects the
// two ranks, so their keys depend on the pair alone and hold for the run.
std::uint64_t queue_pair_key(EndpointId from, EndpointId to, int q);

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
