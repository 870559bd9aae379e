#pragma once
// The system graph flattened for route searches: each part's cables as one
// contiguous run of (neighbour, cable) in the order Boost lists its out-edges
// (declaration order, which is what routing tie-breaks follow), and the
// per-part facts a search asks on every edge. A Boost adjacency list costs a
// cache miss per edge and per Part; a 16,384-GPU cluster has ~80,000 parts,
// and searches over it are the routing's whole cost.
#include <cstdint>
#include <vector>

#include "sim/topology/system_graph.hpp"

namespace simctl {

struct RouteGraph {
  explicit RouteGraph(const SystemGraph& graph);
  std::size_t size() const { return forwards.size(); }

  std::vector<std::uint32_t> first;    // per part: its cables are [first[v], first[v + 1])
  std::vector<EndpointId> neighbour;   // per (part, cable): the other end
  std::vector<std::uint32_t> cable;    // per (part, cable): the cable's index
  std::vector<std::uint8_t> forwards;  // per part: can_transit(kind)
  std::vector<std::uint8_t> penalty;   // per part: transit_penalty
  std::vector<PartKind> kind;
  std::vector<int> node;  // Part::node

  // Parts of each node (by Part::node), and each node's cables to parts
  // outside it (its boundary), as (inside end, outside end, cable).
  struct Exit {
    EndpointId inside;
    EndpointId outside;
    std::uint32_t cable;
  };
  std::vector<std::vector<EndpointId>> node_parts;
  std::vector<std::vector<Exit>> node_exits;
  std::vector<std::uint32_t> index_in_node;  // per part: its place in node_parts[node]
};

}  // namespace simctl
