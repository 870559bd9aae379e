#pragma once
// The ring's fast path: instead of steps x chunks sends per rank, one steady
// flow per ring edge carries everything that edge would carry, and the
// pipeline's latency is added in closed form when it drains. Where nothing
// else contends, the step-by-step ring keeps every link busy from its first
// send to its last, so its time is the same total bytes at the same rate plus
// the fill and drain of the pipeline (derived in ring_fast.cpp); tests check
// the two agree. Contention from other traffic is still shared max-min, but
// at the flow's average rather than step by step.
#include <cstdint>
#include <functional>
#include <span>
#include <vector>

#include "models/network/ring_plan.hpp"
#include "models/network/ring_run.hpp"
#include "sim/core/slot_pool.hpp"

namespace simctl {

// One ring edge's flow once drained: when, and its time per chunk sent.
struct RingEdgeTiming {
  TimePs drained = 0;
  double chunk_seconds = 0.0;
  double solo_chunk_seconds = 0.0;  // a chunk alone on the edge's slowest link
};

// Runs fast rings and owns their in-flight state. A training step runs
// millions of rings, so each one's state is pooled and its edges' callbacks
// carry two indices rather than a heap-allocated closure.
class FastRingRunner final : private HoldOwner {
 public:
  FastRingRunner(Engine& engine, FlowNetwork& network, const Router& router);

  // Ring ops only (all_reduce, all_gather, reduce_scatter); throws
  // std::invalid_argument for a chain (broadcast/reduce).
  // The ECMP key base is given apart from the plan, so that one cached plan
  // serves many launches. `fixed_paths`, when not empty, gives each edge's
  // route where no flow key matters (nullptr: route it with the key).
  // Starts one flow per edge; the caller brackets its rings' starts in one
  // FlowNetwork batch.
  void run(const CollectiveTuning& tuning, const RingPlan& plan, std::uint64_t flow_key,
           std::span<const Path* const> fixed_paths, std::function<void()> on_done);

 private:
  struct Ring {
    std::size_t pending = 0;  // edges still draining
    TimePs started = 0;
    int steps = 0;
    int chunks = 0;
    std::vector<TimePs> edge_latency;  // path latency plus step sync, per edge
    std::vector<RingEdgeTiming> edges;
    std::function<void()> on_done;
  };

  // Edge `edge` of ring `ring` drained at `at` (a held ring's edges are
  // told at its last edge's drain).
  void edge_drained(std::uint32_t ring, std::uint32_t edge, TimePs at);
  void held_flow_drained(std::uint32_t tag, std::uint32_t flow, TimePs at) override { edge_drained(tag, flow, at); }

  Engine& engine_;
  FlowNetwork& network_;
  const Router& router_;
  SlotPool<Ring> rings_;
  std::vector<const Path*> paths_;  // scratch for run()
  std::vector<double> edge_bytes_;  // scratch for run()
  std::vector<double> edge_caps_;   // scratch for run()
};

}  // namespace simctl
