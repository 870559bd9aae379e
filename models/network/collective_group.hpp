#pragma once
// The shape of a collective's group on the machine: its members by node, in
// the order nodes first appear, so algorithms can keep traffic inside nodes
// and cross between them on rails.
#include <algorithm>
#include <limits>
#include <vector>

#include "models/network/collective_topology.hpp"

namespace simctl {

struct GroupShape {
  std::vector<std::vector<EndpointId>> nodes;  // members per node, in rank order
  bool uniform = true;                         // every node has the same number of members
  std::optional<EndpointId> nvswitch;          // the one NVSwitch every member reaches, if so

  int node_count() const { return static_cast<int>(nodes.size()); }
  int per_node() const { return nodes.empty() ? 0 : static_cast<int>(nodes.front().size()); }
};

// Without a topology every member counts as one node with no NVSwitch.
GroupShape shape_of(const std::vector<EndpointId>& members, const CollectiveTopology* topology);

// Whether a transfer between two members crosses the network.
bool crosses_nodes(const CollectiveTopology* topology, EndpointId a, EndpointId b);

// The smallest positive `rate_of(place)` over the members the topology
// places: the slowest member sets the pace of a ring's or a tree's channel.
// Infinite when none has one (no topology, or no figure listed).
template <class RateOf>
double slowest_member(const std::vector<EndpointId>& members, const CollectiveTopology* topology, RateOf rate_of) {
  double slowest = std::numeric_limits<double>::infinity();
  if (!topology) return slowest;
  for (EndpointId m : members) {
    const MemberPlace* place = topology->place(m);
    const double rate = place ? rate_of(*place) : 0.0;
    if (rate > 0.0) slowest = std::min(slowest, rate);
  }
  return slowest;
}

}  // namespace simctl
