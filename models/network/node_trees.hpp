#pragma once
// NCCL's double binary tree over nodes (NVIDIA/nccl src/graph/trees.cc,
// ncclGetBtree and ncclGetDtree): the first tree a binary tree rooted at
// node 0 that alternates leaves and inner nodes, the second its mirror (an
// even node count) or the first shifted by one (odd), so that a node inner
// in one tree is a leaf in the other. Tree, NVLSTree and their cost
// estimates all use it.
#include <array>
#include <vector>

namespace simctl {

struct NodeTree {
  std::vector<int> parent;                 // by node index; -1 for the root
  std::vector<std::vector<int>> children;  // by node index
  std::vector<int> deepest_first;          // node indices, children before parents
};

std::array<NodeTree, 2> nccl_double_tree(int nodes);

// The most bytes one node's NIC sends (or receives) per byte the trees carry:
// each tree carries half, and a node sends one half up to its parent and one
// down to each child. 1 on two nodes; 2 from four on (an inner node with two
// children in one tree is a leaf in the other).
double double_tree_nic_load(int nodes);

}  // namespace simctl
