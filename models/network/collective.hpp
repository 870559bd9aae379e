#pragma once
// Runs collectives as algorithms over point-to-point flows. Today: the ring
// (and its open-chain form for broadcast/reduce), as NCCL runs it for large
// messages with the Simple protocol.
#include <functional>

#include "models/network/collective_request.hpp"
#include "models/network/collective_tuning.hpp"
#include "models/network/flow_network.hpp"
#include "sim/core/engine.hpp"

namespace simctl {

class CollectiveRunner {
 public:
  CollectiveRunner(Engine& engine, FlowNetwork& network, const Router& router, CollectiveTuning tuning);

  // Starts `request` now; `on_done` runs when every rank has its result.
  // The runner, network and router must outlive the collective.
  // One member, or zero bytes, completes at once (no launch latency: NCCL
  // returns without a kernel). Throws std::invalid_argument for all_to_all.
  void start(const CollectiveRequest& request, std::function<void()> on_done);

  const CollectiveTuning& tuning() const { return tuning_; }

 private:
  Engine& engine_;
  FlowNetwork& network_;
  const Router& router_;
  CollectiveTuning tuning_;
};

// nccl-tests bus bandwidth in bytes/s for a collective of `bytes` that took `elapsed`.
double bus_bandwidth_bytes_per_s(CollectiveOp op, int ranks, double bytes, TimePs elapsed);

}  // namespace simctl
