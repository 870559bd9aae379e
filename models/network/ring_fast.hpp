#pragma once
// The ring's fast path: instead of steps x chunks sends per rank, one steady
// flow per ring edge carries everything that edge would carry, and the
// pipeline's latency is added in closed form when it drains. Where nothing
// else contends, the step-by-step ring keeps every link busy from its first
// send to its last, so its time is the same total bytes at the same rate plus
// the fill and drain of the pipeline (derived in ring_fast.cpp); tests check
// the two agree. Contention from other traffic is still shared max-min, but
// at the flow's average rather than step by step.
#include <functional>
#include <span>

#include "models/network/ring_plan.hpp"
#include "models/network/ring_run.hpp"

namespace simctl {

// Ring ops only (all_reduce, all_gather, reduce_scatter); throws
// std::invalid_argument for a chain (broadcast/reduce).
// The ECMP key base is given apart from the plan, so that one cached plan
// serves many launches. `fixed_paths`, when not empty, gives each edge's
// route where no flow key matters (nullptr: route it with the key).
void run_ring_fast(const RingContext& context, const RingPlan& plan, std::uint64_t flow_key,
                   std::span<const Path* const> fixed_paths, std::function<void()> on_done);

}  // namespace simctl
