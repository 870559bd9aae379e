#pragma once
// The nccl-tests twin: one collective on the first `gpus` GPUs of a system
// (or the first `per_node` GPUs of each node, as nccl-tests runs with fewer
// processes per node than GPUs), alone on an idle machine, timed as nccl-tests times it (launch to the last
// rank's completion), with its algbw and busbw. Also a plain copy between
// two parts, as nvbandwidth measures it. Used by `simctl collective`, the
// accuracy tests and the bench.
#include <cstdint>

#include "models/network/collective.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

struct CollectivePoint {
  CollectiveOp op = CollectiveOp::all_reduce;
  int gpus = 0;  // the first `gpus` GPUs in rank order; 0 = all
  double bytes = 0.0;
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::automatic;
  Protocol protocol = Protocol::automatic;
  bool sharp = false;  // whether the fabric's switches reduce
  int ctas = 0;        // NCCL's CTA (channel) count, as NCCL_MIN_CTAS sets it; 0: NCCL's default
  // GPUs taken from each node, node by node (nccl-tests' -N nodes x G GPUs);
  // 0 = every GPU of a node before the next.
  int per_node = 0;
};

struct CollectiveResult {
  TimePs time = 0;
  double algbw_bytes_per_s = 0.0;
  double busbw_bytes_per_s = 0.0;
  CollectiveChoice choice;
  std::uint64_t events = 0;
  std::uint64_t flows = 0;
  std::uint64_t rate_recomputations = 0;
  double recompute_wall_seconds = 0.0;
};

// The members of `point`: the first `gpus` GPUs in rank order, or with
// `per_node` the first `per_node` GPUs of each node until there are `gpus`.
// Throws std::invalid_argument when the system cannot supply them.
std::vector<EndpointId> collective_members(const System& system, const CollectivePoint& point);

// Throws std::invalid_argument when the system has fewer GPUs than asked or
// the algorithm cannot run the op.
CollectiveResult simulate_collective(const System& system, const CollectiveTuning& tuning,
                                     const CollectivePoint& point);

// Time for `bytes` to cross from one part to another on an idle system.
TimePs simulate_copy(const System& system, EndpointId from, EndpointId to, double bytes);

}  // namespace simctl
