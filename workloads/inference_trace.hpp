#pragma once
// The per-rank trace of one serving step (inference_ops.hpp) over the whole
// plan: every rank of a pipeline stage runs its stage's layers on its TP
// shard; stages hand the activations on as training's pipeline does (each
// TP rank sends its 1/t slice to the same TP rank of the next stage, which
// all-gathers them over its TP group); replicas run alike and independently.
// The step is one pass of the whole batch through every stage, so a
// sequence's next token waits for the previous one to leave the last stage.
#include "workloads/inference_ops.hpp"
#include "workloads/trace.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

struct InferenceStep {
  InferencePhase phase = InferencePhase::decode;
  std::int64_t batch = 1;   // sequences per replica in this step
  std::int64_t tokens = 0;  // prefill: prompt tokens; decode: tokens already cached
};

// `spec.inference` must be set.
Trace build_inference_trace(const WorkloadSpec& spec, const InferenceStep& step);

// One stage's ops for `step` (stage 0 of a one-stage plan: the whole model).
InferencePass inference_pass(const WorkloadSpec& spec, const InferenceStep& step, std::int64_t stage);

}  // namespace simctl
