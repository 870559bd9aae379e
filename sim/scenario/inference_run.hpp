#pragma once
// Runs an inference scenario (`task: inference`): each serving step (a
// prefill, a decode step at a given batch and cached length) is built as a
// trace (workloads/inference_trace.hpp) and replayed by the same Executor as
// a training step, on the scenario's system, so TP all-reduces cross the
// real NVLink/NVSwitch or network and PP hand-offs the real links. From the
// replayed steps:
//
//   TTFT  the prefill step of the batch (its LM head yields the first token)
//   TPOT  the mean decode step over the output; a decode step's time is
//         linear in the cached length (the KV reads), so the mean of the
//         first and last steps is the mean over all of them
//   the batch at which decode turns compute-bound: the roofline of the
//         decode step's ops (FLOP time against byte time, each op priced by
//         the compute model) searched over batch sizes
//
// A request stream (`requests:`) is served with continuous batching: each
// replica's engine iterates, prefilling the requests that arrived while the
// batch has room, else decoding every running sequence by one token; each
// iteration's time is a replayed step (memoised per batch; decode steps
// interpolated linearly in the mean cached length between two replays).
#include "sim/report/inference_report.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

InferenceReport run_inference(const Scenario& scenario);

}  // namespace simctl
