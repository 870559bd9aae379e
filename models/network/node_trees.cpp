#include "models/network/node_trees.hpp"

#include <algorithm>

namespace simctl {

namespace {

struct Links {
  int up = -1, down0 = -1, down1 = -1;
};

// ncclGetBtree: parent and children of `rank` in the binary tree on `nranks`.
Links btree(int nranks, int rank) {
  int bit = 1;
  for (; bit < nranks; bit <<= 1) {
    if (bit & rank) break;
  }
  if (rank == 0) return {-1, -1, nranks > 1 ? bit >> 1 : -1};
  Links l;
  l.up = (rank ^ bit) | (bit << 1);
  if (l.up >= nranks) l.up = rank ^ bit;
  int lowbit = bit >> 1;
  l.down0 = lowbit == 0 ? -1 : rank - lowbit;
  l.down1 = lowbit == 0 ? -1 : rank + lowbit;
  while (l.down1 >= nranks) {
    l.down1 = lowbit == 0 ? -1 : rank + lowbit;
    lowbit >>= 1;
  }
  return l;
}

int depth_of(const NodeTree& t, int k) {
  int depth = 0;
  for (int p = t.parent[static_cast<std::size_t>(k)]; p >= 0; p = t.parent[static_cast<std::size_t>(p)]) ++depth;
  return depth;
}

NodeTree tree_from(int nodes, int (*to_tree)(int, int), int (*from_tree)(int, int)) {
  NodeTree t;
  t.parent.assign(static_cast<std::size_t>(nodes), -1);
  t.children.resize(static_cast<std::size_t>(nodes));
  for (int k = 0; k < nodes; ++k) {
    const Links l = btree(nodes, to_tree(k, nodes));
    if (l.up >= 0) t.parent[static_cast<std::size_t>(k)] = from_tree(l.up, nodes);
    for (int d : {l.down0, l.down1}) {
      if (d >= 0) t.children[static_cast<std::size_t>(k)].push_back(from_tree(d, nodes));
    }
  }
  for (int k = 0; k < nodes; ++k) t.deepest_first.push_back(k);
  std::vector<int> depth(static_cast<std::size_t>(nodes));
  for (int k = 0; k < nodes; ++k) depth[static_cast<std::size_t>(k)] = depth_of(t, k);
  std::stable_sort(t.deepest_first.begin(), t.deepest_first.end(), [&](int a, int b) {
    return depth[static_cast<std::size_t>(a)] > depth[static_cast<std::size_t>(b)];
  });
  return t;
}

int same(int k, int) { return k; }
int mirror(int k, int n) { return n - 1 - k; }
int shift_in(int k, int n) { return (k - 1 + n) % n; }
int shift_out(int k, int n) { return (k + 1) % n; }

}  // namespace

std::array<NodeTree, 2> nccl_double_tree(int nodes) {
  NodeTree first = tree_from(nodes, same, same);
  NodeTree second = nodes % 2 == 1 ? tree_from(nodes, shift_in, shift_out) : tree_from(nodes, mirror, mirror);
  return {std::move(first), std::move(second)};
}

double double_tree_nic_load(int nodes) {
  if (nodes < 2) return 0.0;
  const std::array<NodeTree, 2> trees = nccl_double_tree(nodes);
  int most_halves = 0;
  for (int k = 0; k < nodes; ++k) {
    int halves = 0;
    for (const NodeTree& t : trees) {
      halves += (t.parent[static_cast<std::size_t>(k)] >= 0 ? 1 : 0) +
                static_cast<int>(t.children[static_cast<std::size_t>(k)].size());
    }
    most_halves = std::max(most_halves, halves);
  }
  return most_halves / 2.0;
}

}  // namespace simctl
