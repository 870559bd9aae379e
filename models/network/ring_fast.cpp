#include "models/network/ring_fast.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>

namespace simctl {

namespace {

struct FastRing {
  std::size_t pending = 0;
  TimePs finish = 0;
  std::function<void()> on_done;
};

// Step-by-step, a rank starts step s when both its own link is free (all
// chunks of s-1 sent: chunks x ct) and chunk 0 of s-1 has arrived from its
// predecessor (ct + L after that one started), so one step takes
// max(chunks x ct, ct + L) and the last arrival lands chunks x ct + L after
// the last step starts. The flow already spends steps x chunks x ct; this is
// the rest.
TimePs pipeline_latency(int steps, int chunks, double chunk_seconds, TimePs latency) {
  const double stall = std::max(0.0, chunk_seconds + ps_to_seconds(latency) - chunks * chunk_seconds);
  return latency + seconds_to_ps((steps - 1) * stall);
}

}  // namespace

void run_ring_fast(const RingContext& context, const RingPlan& plan, std::uint64_t flow_key,
                   std::span<const Path* const> fixed_paths, std::function<void()> on_done) {
  const std::size_t n = plan.order.size();
  if (plan.chain) throw std::invalid_argument("ring fast path: only rings where every rank sends every step");
  auto state = std::make_shared<FastRing>();
  state->pending = n;
  state->on_done = std::move(on_done);
  const double wire_chunk = plan.chunk_bytes / context.tuning.protocol_efficiency;
  const double sends = static_cast<double>(plan.steps) * plan.chunks;
  Engine& engine = context.engine;
  context.network.begin_batch();
  for (std::size_t p = 0; p < n; ++p) {
    const Path* fixed = p < fixed_paths.size() ? fixed_paths[p] : nullptr;
    const Path& path = fixed ? *fixed : context.router.route(plan.order[p], plan.order[(p + 1) % n], flow_key + p);
    const TimePs sync = plan.sync_latency.empty() ? context.tuning.step_latency : plan.sync_latency[p];
    const TimePs started = engine.now();
    const TimePs latency = path.latency + sync;
    const int steps = plan.steps, chunks = plan.chunks;
    context.network.start(path, wire_chunk * sends, {}, [state, &engine, started, latency, steps, chunks, sends] {
      const double chunk_seconds = ps_to_seconds(engine.now() - started) / sends;
      state->finish = std::max(state->finish, engine.now() + pipeline_latency(steps, chunks, chunk_seconds, latency));
      if (--state->pending > 0) return;
      engine.schedule_at(state->finish, std::move(state->on_done));
    });
  }
  context.network.end_batch();
}

}  // namespace simctl
