#pragma once
// Per-job algorithm overrides, as a run config states them:
//
//   collectives: {all_reduce: ring, all_to_all: direct}
//
// Ops left out stay `auto`. The scenario loader applies them to each
// CollectiveRequest it issues (apply()).
#include <array>

#include "models/network/collective_request.hpp"
#include "sim/config/config_node.hpp"

namespace simctl {

struct CollectiveOverrides {
  std::array<CollectiveAlgorithm, 6> by_op{};  // indexed by CollectiveOp; automatic by default

  CollectiveAlgorithm for_op(CollectiveOp op) const { return by_op[static_cast<std::size_t>(op)]; }
  // Sets the request's algorithm unless it already names one.
  void apply(CollectiveRequest& request) const;
};

// `node` is the mapping under `collectives:`. Throws ConfigError
// (file:line:col) naming the valid ops or algorithms on a bad key or value.
CollectiveOverrides parse_collective_overrides(const ConfigNode& node);

}  // namespace simctl
