#include "models/network/collective.hpp"

#include "models/network/ring_plan.hpp"
#include "models/network/ring_run.hpp"

namespace simctl {

CollectiveRunner::CollectiveRunner(Engine& engine, FlowNetwork& network, const Router& router, CollectiveTuning tuning)
    : engine_(engine), network_(network), router_(router), tuning_(tuning) {}

void CollectiveRunner::start(const CollectiveRequest& request, std::function<void()> on_done) {
  if (request.members.size() <= 1 || !(request.bytes > 0.0)) {
    engine_.schedule_after(0, std::move(on_done));
    return;
  }
  // Plan now so that an unsupported op fails at the call, not inside the loop.
  RingPlan plan = plan_ring(request, tuning_);
  engine_.schedule_after(tuning_.launch_latency, [this, plan = std::move(plan), done = std::move(on_done)]() mutable {
    run_ring(RingContext{engine_, network_, router_, tuning_}, std::move(plan), std::move(done));
  });
}

double bus_bandwidth_bytes_per_s(CollectiveOp op, int ranks, double bytes, TimePs elapsed) {
  if (elapsed <= 0) return 0.0;
  return bytes / ps_to_seconds(elapsed) * bus_bandwidth_factor(op, ranks);
}

}  // namespace simctl
