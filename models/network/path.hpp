#pragma once
// A routed path through the system: the directed links a transfer crosses.
// Topology produces paths; the flow network and collectives consume them.
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

// Directed link index. A full-duplex cable (graph edge e) is two directed
// links: 2*e carries traffic from the edge's source to its target, 2*e+1 back.
using LinkId = std::uint32_t;
// A vertex of the system graph (GPU, switch, NIC...).
using EndpointId = std::uint32_t;

struct Path {
  std::vector<LinkId> links;
  TimePs latency = 0;  // sum of per-hop latencies
  // The share of the flow's bytes each link carries, parallel to `links`,
  // where a connection is spread over several queue pairs that hash onto
  // different paths (NCCL moves a connection's data evenly over its queue
  // pairs, so the connection runs at its slowest queue pair's pace: one flow
  // whose rate r puts r x share on each link). Empty: every link carries all.
  std::vector<double> shares;

  double share(std::size_t i) const { return shares.empty() ? 1.0 : shares[i]; }
};

// Anything that can route between two endpoints. Implemented by the
// topology; collectives depend on this interface only.
class Router {
 public:
  virtual ~Router() = default;
  virtual const Path& route(EndpointId from, EndpointId to) const = 0;
  // The path one particular flow takes. Where several equal-cost paths exist
  // (a fat-tree), a router picks one by a deterministic hash of `flow_key`, as
  // ECMP does in real fabrics, so two flows can collide on one uplink. The
  // default ignores the key.
  virtual const Path& route(EndpointId from, EndpointId to, std::uint64_t flow_key) const {
    (void)flow_key;
    return route(from, to);
  }
  // The path every flow key takes from `from` to `to`, where the key never
  // matters (static or adaptive fabric routing, a connection spread over its
  // queue pairs); nullptr where it may. A caller that routes the same pair
  // again and again (a cached collective plan) keeps it instead of asking.
  virtual const Path* route_for_every_key(EndpointId from, EndpointId to) const {
    (void)from;
    (void)to;
    return nullptr;
  }
};

}  // namespace simctl
