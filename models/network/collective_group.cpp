#include "models/network/collective_group.hpp"

#include <map>

namespace simctl {

GroupShape shape_of(const std::vector<EndpointId>& members, const CollectiveTopology* topology) {
  GroupShape shape;
  std::map<int, std::size_t> slot_of_node;
  bool all_on_one_switch = topology != nullptr;
  for (EndpointId m : members) {
    const MemberPlace* place = topology ? topology->place(m) : nullptr;
    const int node = place ? place->node : 0;
    auto [it, fresh] = slot_of_node.try_emplace(node, shape.nodes.size());
    if (fresh) shape.nodes.emplace_back();
    shape.nodes[it->second].push_back(m);
    if (!place || !place->nvswitch || (shape.nvswitch && *shape.nvswitch != *place->nvswitch)) {
      all_on_one_switch = false;
    } else {
      shape.nvswitch = place->nvswitch;
    }
  }
  if (!all_on_one_switch || shape.nodes.size() != 1) shape.nvswitch.reset();
  for (const auto& node : shape.nodes) shape.uniform = shape.uniform && node.size() == shape.nodes.front().size();
  return shape;
}

bool crosses_nodes(const CollectiveTopology* topology, EndpointId a, EndpointId b) {
  if (!topology) return false;
  const MemberPlace* pa = topology->place(a);
  const MemberPlace* pb = topology->place(b);
  return pa && pb && pa->node != pb->node;
}

}  // namespace simctl
