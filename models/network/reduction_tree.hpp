#pragma once
// The switches an in-network reduction climbs (SHARP): every member sends to
// the switch above it, each switch reduces what its children sent and sends
// one stream on towards the root, and the result comes back down the same
// edges. A star (every member a child of the root) is NVLS's shape inside an
// NVSwitch node, and a fabric whose group sits under one leaf.
#include <utility>
#include <vector>

#include "models/network/path.hpp"

namespace simctl {

struct ReductionTree {
  EndpointId root = 0;
  // (child, parent) with the number of switches from the parent up to the
  // root, 0 for an edge into the root: members are children only.
  struct Edge {
    EndpointId child = 0;
    EndpointId parent = 0;
    int depth = 0;
  };
  std::vector<Edge> edges;

  static ReductionTree star(const std::vector<EndpointId>& members, EndpointId root) {
    ReductionTree tree{root, {}};
    for (EndpointId m : members) tree.edges.push_back({m, root, 0});
    return tree;
  }
};

}  // namespace simctl
