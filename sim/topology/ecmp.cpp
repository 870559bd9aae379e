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

std::vector<NextHop> next_hops(const SystemGraph& graph, const RouteTree& to_tree, EndpointId at, EndpointId to) {
  std::vector<NextHop> out;
  const std::int32_t here = to_tree.cost[at];
  for (const auto& e : boost::make_iterator_range(boost::out_edges(at, graph))) {
    const auto n = static_cast<EndpointId>(boost::target(e, graph));
    const std::int32_t there = to_tree.cost[n];
    if (there == RouteTree::kUnreachable) continue;
    if (n != to && !can_transit(graph[n].kind)) continue;
    // Passing through n costs its penalty; arriving at `to` costs none.
    const int through = 1 + (n == to ? 0 : transit_penalty(graph[n]));
    if (there + through == here) out.push_back({n, e});
  }
  return out;
}

Path ecmp_path(const SystemGraph& graph, const RouteTree& to_tree, EndpointId from, EndpointId to,
               std::uint64_t flow_key) {
  Path path;
  for (EndpointId at = from; at != to;) {
    const std::vector<NextHop> hops = next_hops(graph, to_tree, at, to);
    // Costs fall strictly along a least-cost route, so a reached part always
    // has a next hop and the walk ends.
    const NextHop& pick = hops[mix(flow_key ^ mix(at)) % hops.size()];
    const Cable& cable = graph[pick.cable];
    path.links.push_back(link_leaving(cable, at));
    path.latency += cable.spec.latency;
    at = pick.part;
  }
  return path;
}

}  // namespace simctl
