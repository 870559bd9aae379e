#pragma once
// Per-job collective settings, as a run config states them:
//
//   collectives: {all_reduce: ring, all_to_all: direct, sharp: true, ctas: 24}
//
// Ops left out stay `auto` (the tuner chooses, collective_choice.hpp);
// `sharp` says the fabric's switches reduce (InfiniBand SHARP), which lets
// an all-reduce across nodes run `sharp`; `ctas` is NCCL's CTA (channel)
// count, as NCCL_MIN_CTAS / NCCL_MAX_CTAS pin it, which bounds rings
// across nodes (collective_choice.hpp, ring_network_wire_factor). The
// executor applies them to each CollectiveRequest it issues (apply()).
#include <array>

#include "models/network/collective_request.hpp"
#include "sim/config/config_node.hpp"

namespace simctl {

inline constexpr std::size_t kCollectiveOpCount = 6;
// NCCL's MAXCHANNELS: the most CTAs one collective runs.
inline constexpr int kMaxCtas = 64;

struct CollectiveOverrides {
  std::array<CollectiveAlgorithm, kCollectiveOpCount> by_op{};  // indexed by CollectiveOp; automatic by default
  bool sharp = false;                                           // the network switches reduce (SHARP)
  int ctas = 0;                                                 // NCCL's CTA count; 0: its default

  CollectiveAlgorithm for_op(CollectiveOp op) const { return by_op[static_cast<std::size_t>(op)]; }
  // Sets the request's algorithm unless it already names one.
  void apply(CollectiveRequest& request) const;
};

// `node` is the mapping under `collectives:`. Throws ConfigError
// (file:line:col) naming the valid keys or algorithms on a bad key or value.
CollectiveOverrides parse_collective_overrides(const ConfigNode& node);

}  // namespace simctl
