#pragma once
// How a rank is fed: each micro-batch is read from the node's storage (or is
// already in host memory), preprocessed by the data loader's CPU workers,
// then copied to the GPU.
//
//   input:
//     source: storage              # or host_memory (default: cached in RAM)
//     bytes_per_sample: 110 KiB    # default: the model's input (token ids)
//     preprocess_per_sample: 2 ms  # one worker's CPU time per sample; default 0
//     workers: 8                   # data-loader workers per rank; default 1
//     prefetch: true               # default true
//     start: steady                # or cold; default steady
//     host_memory: pinned          # or pageable: staged by a CPU memcpy; default pinned
//
// With prefetch (PyTorch DataLoader's workers) a step is simulated in the
// steady state by default: the workers read and preprocessed this step's
// first batch during the previous step, and during this one they work, on
// the rank's loader stream, through its later batches and the next step's
// first. A loader faster than the GPU then costs nothing but the copies; a
// slower one still bounds the step, because the step is not over until the
// next step's first batch is ready. `start: cold` simulates a first step
// instead: nothing is prefetched, so the first batch's read, preprocessing
// and copy all run before its forward pass, and later batches load on the
// copy stream while the GPU computes.
//
// The host-to-device copy in the steady state is part of the training loop,
// as `batch.to(device)` is in PyTorch: it is queued after the work before
// it (pinned memory with non_blocking=True frees the CPU, not the GPU's
// stream order) and the forward pass waits for it, so it is never hidden.
// Hiding it too takes a CUDA-stream prefetcher (DALI, Lightning's), which
// this model does not assume.
//
// Without prefetch (num_workers=0: the training loop loads each batch
// itself) every batch, the first included, loads after the work before it;
// `start` makes no difference.
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "workloads/rank_ops.hpp"
#include "workloads/trace.hpp"

namespace simctl {

struct InputPipeline {
  bool from_storage = false;
  double bytes_per_sample = 0.0;  // 0: the model's own input size
  double preprocess_seconds_per_sample = 0.0;
  std::int64_t workers = 1;
  bool prefetch = true;
  bool cold_start = false;  // `start: cold`; default the steady state
  bool pageable = false;    // `host_memory: pageable`; default pinned
};

// `node` is the workload's `input:` mapping.
InputPipeline parse_input_pipeline(const ConfigNode& node);

// One micro-batch to load, and where it falls in the rank's step.
struct MicroBatchLoad {
  double samples = 0.0;
  double model_bytes_per_sample = 0.0;  // used unless the input names bytes_per_sample
  std::string prefix;                   // of the op names ("mb3.")
  bool first = true;                    // the first micro-batch the rank loads in the step
  bool last = true;                     // the last: a steady loader then prepares the next step's first
};

// Appends `op`, returns its index; `feeds_forward`: the next compute op waits for it.
using EmitOp = std::function<OpIndex(Op op, bool feeds_forward)>;

// Emits the ops that load `batch` (see the top of this file), after compute
// op `last_compute` if there is one.
void load_micro_batch(const InputPipeline& input, const MicroBatchLoad& batch, std::optional<OpIndex> last_compute,
                      const EmitOp& emit);
void load_micro_batch(RankOps& ops, const InputPipeline& input, const MicroBatchLoad& batch);

}  // namespace simctl
