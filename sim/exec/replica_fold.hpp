#pragma once
// Data-parallel replicas that replay alike, found from the trace and the
// system before a replay, so that the executor can replay one of them (the
// representative, replica 0) and let the others share its timings.
//
// A replica is a set of ranks joined by pipeline transfers, by every
// collective that is not data-parallel (TP, embedding, EP groups) and by
// sharing a node (two data-parallel ranks on one node, TP 4 on 8 GPUs,
// replay together). Ranks at the same position of two replicas are alike
// when they run the same program, their peers and non-data groups are the
// images of each other's, each data-parallel group holds the same positions
// of every replica (one rank each, or more where they share a node; the
// representative's the lowest at each), and they sit at the same place of
// nodes built alike (same GPU model and speed, same cables in the same
// order). That is what fold_replicas
// checks; the contention the ranks see is checked during and after the
// folded replay (executor.cpp), which falls back to a full one if any image
// would have seen something else.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

struct ReplicaFold {
  // What a group is to the folded replay.
  enum class Role : std::uint8_t {
    none,        // no rank of the representative calls on it
    spanning,    // one member per replica (data parallel): run once, whole
    node_local,  // inside the representative and inside one node: run for it alone
    imaged,      // inside the representative, across nodes: run with every image
  };
  std::uint32_t replicas = 0;
  std::vector<std::uint32_t> replica_of;                // per rank
  std::vector<std::uint32_t> position_of;               // per rank: its place in its replica
  std::vector<std::vector<std::uint32_t>> members;      // [replica][position] -> rank
  std::vector<Role> role;                               // per group
  std::vector<std::vector<std::uint32_t>> group_image;  // per group of the representative: [replica] -> group
  std::vector<std::uint32_t> spanning_share;            // per spanning group: its members in each replica
  // Data-parallel traffic crosses some node's own links: two replicas share
  // a node (TP 4 on 8 GPUs) and replay as one, or a data-parallel group holds
  // two ranks of one node (CP: gradients are summed over data x context, and
  // a CP pair sits in one node). Node-local collectives and transfers then
  // run for every image too, so that the images' inside links carry what a
  // full replay puts there beside the data-parallel flows.
  bool dp_inside_nodes = false;
  // Per node of the representative, its image in every replica ([replica]
  // -> node), and per node the links of the cables that touch it, in cable
  // order (the same count, capacities and insides in a node and its images).
  std::vector<std::vector<int>> node_image;     // [node], empty for nodes without representative ranks
  std::vector<std::vector<LinkId>> node_links;  // [node]
  std::vector<std::vector<bool>> link_inside;   // [node][i]: both ends of node_links[node][i]'s cable in the node

  std::uint32_t image(std::uint32_t rank, std::uint32_t replica) const { return members[replica][position_of[rank]]; }
  bool represents(std::uint32_t rank) const { return replica_of[rank] == 0; }
};

// The fold of `trace` on `system`, or nothing when the ranks are not alike
// (or there is only one replica).
std::optional<ReplicaFold> fold_replicas(const Trace& trace, const System& system);

}  // namespace simctl
