#pragma once
// Executes a RingPlan on the flow network. Each rank issues its sends in plan
// order, one at a time on its outgoing link (the next may start when the
// previous has drained), and a send (s, c) waits until (s-1, c) has arrived
// from its predecessor: per-rank dependencies, no global barrier. An arrival
// lands after the path latency plus the tuning's per-step latency.
#include <functional>
#include <memory>

#include "models/network/collective_tuning.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/ring_plan.hpp"
#include "sim/core/engine.hpp"

namespace simctl {

struct RingContext {
  Engine& engine;
  FlowNetwork& network;
  const Router& router;
  const CollectiveTuning& tuning;
};

// Starts the sends now (the caller accounts for launch latency); `on_done`
// runs when the last arrival lands.
void run_ring(const RingContext& context, RingPlan plan, std::function<void()> on_done);

}  // namespace simctl
