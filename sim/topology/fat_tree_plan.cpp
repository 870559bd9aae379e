// The arithmetic of a fat tree: ports per leaf and which NIC goes where.
#include <algorithm>
#include <cmath>

#include "sim/topology/fat_tree.hpp"

namespace simctl {
namespace {

// Splits `items` into `parts` runs whose sizes differ by at most one.
std::vector<std::vector<EndpointId>> split_evenly(const std::vector<EndpointId>& items, std::size_t parts) {
  std::vector<std::vector<EndpointId>> out(parts);
  for (std::size_t p = 0; p < parts; ++p) {
    const std::size_t first = p * items.size() / parts;
    const std::size_t last = (p + 1) * items.size() / parts;
    out[p].assign(items.begin() + static_cast<std::ptrdiff_t>(first),
                  items.begin() + static_cast<std::ptrdiff_t>(last));
  }
  return out;
}

void append_leaves(std::vector<std::vector<EndpointId>>& leaves, const std::vector<EndpointId>& nics, int down_ports) {
  if (nics.empty()) return;
  const std::size_t count = (nics.size() + down_ports - 1) / down_ports;
  for (auto& leaf : split_evenly(nics, count)) leaves.push_back(std::move(leaf));
}

}  // namespace

int leaf_down_ports(int radix, double oversubscription, int tiers) {
  if (tiers == 1) return radix;
  const int down = static_cast<int>(std::floor(radix * oversubscription / (oversubscription + 1.0) + 1e-9));
  return std::clamp(down, 1, radix - 1);  // keep at least one port each way
}

int leaf_uplinks(int nics, double oversubscription) {
  return std::max(1, static_cast<int>(std::ceil(nics / oversubscription - 1e-9)));
}

std::vector<std::vector<EndpointId>> assign_leaves(const std::vector<std::vector<EndpointId>>& nics_by_node,
                                                   bool rail_optimised, int down_ports) {
  std::vector<std::vector<EndpointId>> leaves;
  if (!rail_optimised) {
    std::vector<EndpointId> all;
    for (const auto& node : nics_by_node) all.insert(all.end(), node.begin(), node.end());
    append_leaves(leaves, all, down_ports);
    return leaves;
  }
  std::size_t rails = 0;
  for (const auto& node : nics_by_node) rails = std::max(rails, node.size());
  for (std::size_t r = 0; r < rails; ++r) {
    std::vector<EndpointId> rail;  // NIC r of every node that has one (mixed clusters may not)
    for (const auto& node : nics_by_node) {
      if (r < node.size()) rail.push_back(node[r]);
    }
    append_leaves(leaves, rail, down_ports);
  }
  return leaves;
}

}  // namespace simctl
