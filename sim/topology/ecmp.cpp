#include "sim/topology/ecmp.hpp"

namespace simctl {
namespace {

// SplitMix64's finaliser: every input bit affects every output bit, so keys
// that differ in one bit (flow 0, flow 1...) still land on unrelated choices.
std::uint64_t mix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

}  // namespace

void next_hops(const RouteGraph& graph, const DestinationCosts& to_costs, EndpointId at, EndpointId to,
               std::vector<NextHop>& out) {
  out.clear();
  const std::int32_t here = to_costs.cost(at);
  for (std::uint32_t e = graph.first[at]; e < graph.first[at + 1]; ++e) {
    const EndpointId n = graph.neighbour[e];
    if (n != to && !graph.forwards[n]) continue;
    const std::int32_t there = to_costs.cost(n);
    if (there == RouteTree::kUnreachable) continue;
    // Passing through n costs its penalty; arriving at `to` costs none.
    const int through = 1 + (n == to ? 0 : graph.penalty[n]);
    if (there + through == here) out.push_back({n, graph.cable[e]});
  }
}

std::size_t ecmp_pick(std::uint64_t flow_key, EndpointId at, std::size_t choices) {
  return static_cast<std::size_t>(mix(flow_key ^ mix(at)) % choices);
}

}  // namespace simctl
