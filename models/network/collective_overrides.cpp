#include "models/network/collective_overrides.hpp"

#include <stdexcept>
#include <string>
#include <vector>

#include "models/network/collective_choice.hpp"
#include "sim/config/config_schema.hpp"

namespace simctl {

namespace {

constexpr std::string_view kSharpKey = "sharp";
constexpr std::string_view kCtasKey = "ctas";

std::vector<std::string> algorithms_of(CollectiveOp op) {
  std::vector<std::string> names;
  for (CollectiveAlgorithm a : kAllCollectiveAlgorithms) {
    if (algorithm_runs_op(a, op)) names.emplace_back(to_string(a));
  }
  return names;
}

}  // namespace

void CollectiveOverrides::apply(CollectiveRequest& request) const {
  if (request.algorithm == CollectiveAlgorithm::automatic) request.algorithm = for_op(request.op);
}

CollectiveOverrides parse_collective_overrides(const ConfigNode& node) {
  expect_section(node, "collectives");  // the keys: every op, `sharp` and `ctas`
  CollectiveOverrides overrides;
  for (const auto& [key, value] : node.entries()) {
    if (key == kSharpKey) {
      overrides.sharp = value.as_bool();
      continue;
    }
    if (key == kCtasKey) {
      const std::int64_t ctas = node.positive_integer(kCtasKey);
      if (ctas > kMaxCtas) {
        value.fail("NCCL runs at most " + std::to_string(kMaxCtas) + " CTAs; give 1 to " + std::to_string(kMaxCtas));
      }
      overrides.ctas = static_cast<int>(ctas);
      continue;
    }
    const auto op = collective_op_from_string(key);
    if (!op) throw std::logic_error("the `collectives` schema section names '" + key + "', which is no collective");
    const std::string text = value.as_string();
    const auto algorithm = collective_algorithm_from_string(text);
    if (!algorithm)
      value.fail("unknown algorithm '" + text + "'; valid: " + join_choices(collective_algorithm_names()));
    if (!algorithm_runs_op(*algorithm, *op)) {
      value.fail(text + " cannot run " + key + "; valid for it: " + join_choices(algorithms_of(*op)));
    }
    overrides.by_op[static_cast<std::size_t>(*op)] = *algorithm;
  }
  return overrides;
}

}  // namespace simctl
