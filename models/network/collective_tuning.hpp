#pragma once
// What NCCL adds on top of the wire: fixed and per-step latencies and the
// share of the links' effective rate its protocol reaches. Data in
// collective_tuning.yaml, each figure with the measurement or source it is
// fitted to.
#include <cstdint>
#include <string>

#include "models/network/collective_algorithm.hpp"
#include "sim/config/data_root.hpp"
#include "sim/core/units.hpp"

namespace simctl {

// One wire protocol's cost: the share of the link it reaches, the launch
// latency, and the sync latency per step over NVLink and over the network.
struct ProtocolTuning {
  double efficiency = 1.0;
  TimePs launch_latency = 0;
  TimePs nvlink_step_latency = 0;
  TimePs network_step_latency = 0;
};

// In-switch reduction (NVLS, SHARP): the share of the port rate the switch's
// reduce-and-multicast reaches, its latencies and its pipelining granularity.
struct InSwitchTuning {
  double efficiency = 1.0;
  TimePs launch_latency = 0;
  TimePs step_latency = 0;
  double chunk_bytes = 16.0 * kMiB;
};

struct CollectiveTuning {
  // Ring with the Simple protocol (the fields the first ring model used).
  TimePs launch_latency = 0;         // once per collective (kernel launch, setup)
  TimePs step_latency = 0;           // per ring step on the dependency chain (flag sync), over NVLink
  double protocol_efficiency = 1.0;  // payload / effective link rate for bulk transfers
  double chunk_bytes = 4.0 * kMiB;   // pipelining granularity of one ring step
  int max_chunks_per_step = 64;      // bounds the flow count for huge buffers
  TimePs network_step_latency = 0;   // per ring step that crosses the network (Simple)

  ProtocolTuning ll;             // LL
  ProtocolTuning ll128;          // LL128
  double tree_efficiency = 1.0;  // a tree's share of the ring's bandwidth (NCCL derates it)
  InSwitchTuning nvls;
  InSwitchTuning sharp;
  // A ring with more sends than this runs as steady flows (ring_fast.hpp).
  std::uint64_t fast_path_min_sends = UINT64_MAX;

  // The figures of one protocol; Simple's are the ring fields above.
  ProtocolTuning protocol(Protocol p) const;

  static CollectiveTuning load(const std::string& path = data_root() + "/models/network/collective_tuning.yaml");
};

}  // namespace simctl
