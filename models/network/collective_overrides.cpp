#include "models/network/collective_overrides.hpp"

#include <string>
#include <vector>

namespace simctl {

namespace {

std::vector<std::string> names_of_ops() {
  std::vector<std::string> names;
  for (int i = 0; i < 6; ++i) names.emplace_back(to_string(static_cast<CollectiveOp>(i)));
  return names;
}

std::vector<std::string> names_of_algorithms() {
  std::vector<std::string> names;
  for (CollectiveAlgorithm a : kAllCollectiveAlgorithms) names.emplace_back(to_string(a));
  return names;
}

}  // namespace

void CollectiveOverrides::apply(CollectiveRequest& request) const {
  if (request.algorithm == CollectiveAlgorithm::automatic) request.algorithm = for_op(request.op);
}

CollectiveOverrides parse_collective_overrides(const ConfigNode& node) {
  node.expect_map();
  CollectiveOverrides overrides;
  for (const auto& [key, value] : node.entries()) {
    const auto op = collective_op_from_string(key);
    if (!op) value.fail("unknown collective '" + key + "'; valid: " + join_choices(names_of_ops()));
    const std::string text = value.as_string();
    const auto algorithm = collective_algorithm_from_string(text);
    if (!algorithm) value.fail("unknown algorithm '" + text + "'; valid: " + join_choices(names_of_algorithms()));
    overrides.by_op[static_cast<std::size_t>(*op)] = *algorithm;
  }
  return overrides;
}

}  // namespace simctl
