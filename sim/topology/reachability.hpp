#pragma once
// Which parts can reach which, for the load-time checks, without a route
// tree per GPU (a 1024-GPU cluster would need 1024 searches and tens of MB).
//
// A route's inner parts all forward traffic, so they lie in one connected
// piece of the forwarders-only graph (a "component"). Two parts reach each
// other when a cable joins them or they can both enter one component: a
// forwarder enters its own, any other part those of its forwarding neighbours.
#include <string>
#include <vector>

#include "sim/topology/system_graph.hpp"

namespace simctl {

class Reachability {
 public:
  explicit Reachability(const SystemGraph& graph);

  bool reaches(EndpointId a, EndpointId b) const;
  // Whether `v` reaches any part of `kind` other than itself.
  bool reaches_kind(EndpointId v, PartKind kind) const;
  // Forwarders cabled only among themselves, in a loop, entered by no GPU:
  // names of the parts of each such island.
  std::vector<std::vector<std::string>> gpu_less_loops() const;

 private:
  EndpointId find(EndpointId v) const;
  bool adjacent_kind(EndpointId v, PartKind kind) const;

  const SystemGraph& graph_;
  mutable std::vector<EndpointId> parent_;       // union-find over forwarders (path-halving)
  std::vector<std::vector<EndpointId>> enters_;  // per part: component roots, sorted, unique
  std::vector<std::vector<int>> kind_count_;     // per root: parts of each kind that enter it
};

}  // namespace simctl
