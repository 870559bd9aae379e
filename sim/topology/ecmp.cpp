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
  next_hops_by(
      graph, [&](EndpointId v) { return to_costs.cost(v); }, at, to, out);
}

std::size_t ecmp_pick(std::uint64_t flow_key, EndpointId at, std::size_t choices) {
  return static_cast<std::size_t>(mix(flow_key ^ mix(at)) % choices);
}

std::uint64_t queue_pair_key(EndpointId from, EndpointId to, int q) {
  return mix(mix((static_cast<std::uint64_t>(from) << 32) | to) ^ static_cast<std::uint64_t>(q));
}

}  // namespace simctl
