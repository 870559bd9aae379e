#pragma once
// What NCCL adds on top of the wire: fixed and per-step latencies and the
// share of the links' effective rate its protocol reaches. Data in
// collective_tuning.yaml, each figure with the measurement or source it is
// fitted to.
#include <string>

#include "sim/config/data_root.hpp"
#include "sim/core/units.hpp"

namespace simctl {

struct CollectiveTuning {
  TimePs launch_latency = 0;         // once per collective (kernel launch, setup)
  TimePs step_latency = 0;           // per ring step on the dependency chain (flag sync)
  double protocol_efficiency = 1.0;  // payload / effective link rate for bulk transfers
  double chunk_bytes = 4.0 * kMiB;   // pipelining granularity of one ring step
  int max_chunks_per_step = 64;      // bounds the flow count for huge buffers

  static CollectiveTuning load(const std::string& path = data_root() + "/models/network/collective_tuning.yaml");
};

}  // namespace simctl
