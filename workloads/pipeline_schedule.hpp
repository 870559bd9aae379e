#pragma once
// The order in which one pipeline stage runs forward and backward passes of
// its micro-batches (and, interleaved, of its model chunks). Only the order is
// decided here; when each pass runs, and so the bubble, comes out of the
// simulation (a pass waits for its input from the neighbouring stage).
#include <cstdint>
#include <vector>

#include "workloads/workload_config.hpp"

namespace simctl {

struct PipelineStep {
  bool forward = true;
  std::int64_t micro = 0;  // micro-batch
  std::int64_t chunk = 0;  // model chunk on this stage (0 unless interleaved)
};

// GPipe: every forward, then every backward. 1F1B (PipeDream-Flush, as
// Megatron-LM runs it): p - stage - 1 warm-up forwards, then one forward and
// one backward in turn, then the remaining backwards. Interleaved 1F1B:
// Megatron-LM's schedule over `chunks` model chunks per stage
// (megatron/core/pipeline_parallel/schedules.py,
// forward_backward_pipelining_with_interleaving).
std::vector<PipelineStep> stage_schedule(PipelineSchedule schedule, std::int64_t stages, std::int64_t stage,
                                         std::int64_t micro_batches, std::int64_t chunks);

// Micro-batches whose activations a stage holds at most under the schedule
// (counted in chunk passes: a forward adds one, its backward frees it).
std::int64_t peak_in_flight(const std::vector<PipelineStep>& steps);

}  // namespace simctl
