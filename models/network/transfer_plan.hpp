#pragma once
// A collective as a graph of point-to-point transfers: each waits for the
// arrival of the transfers it depends on (per-rank dependencies, as NCCL's
// flags give, no global barrier), and transfers that share a lane go one at
// a time in plan order, as one rank's sends on one connection do, so chunks
// pipeline. Tree, halving-doubling, direct, master and in-switch algorithms
// are all plans of this shape; run_transfers executes any of them.
#include <cstdint>
#include <functional>
#include <limits>
#include <vector>

#include "models/network/flow_network.hpp"
#include "sim/core/engine.hpp"

namespace simctl {

struct Transfer {
  EndpointId from = 0;
  EndpointId to = 0;
  double wire_bytes = 0.0;           // payload / protocol efficiency
  std::vector<std::uint32_t> after;  // transfers that must have arrived first
  int lane = -1;                     // -1: starts as soon as ready
  TimePs sync_latency = 0;           // added after the bytes land (flag sync)
  // Its sender pushes no faster than this (wire bytes/s; NCCL's CTAs), whatever the links leave it.
  double max_bytes_per_s = std::numeric_limits<double>::infinity();
};

struct TransferPlan {
  std::vector<Transfer> transfers;
  int lanes = 0;
  std::uint64_t flow_key = 0;  // ECMP key base: transfer i hashes with flow_key + i

  std::uint32_t add(Transfer t) {
    transfers.push_back(std::move(t));
    return static_cast<std::uint32_t>(transfers.size() - 1);
  }
  int new_lane() { return lanes++; }
};

struct TransferContext {
  Engine& engine;
  FlowNetwork& network;
  const Router& router;
};

// Starts every transfer with no dependencies now; `on_done` runs when the
// last one has arrived (at once for an empty plan). Throws
// std::invalid_argument for a dependency on a later transfer (a cycle).
void run_transfers(const TransferContext& context, TransferPlan plan, std::function<void()> on_done);

}  // namespace simctl
