#pragma once
// How a rank is fed: each micro-batch is read from the node's storage (or is
// already in host memory), preprocessed by the data loader's CPU workers,
// then copied to the GPU. With prefetch (PyTorch DataLoader's default) the
// next batches load while the GPU computes; without it each batch starts
// loading only when the previous one's work is done, so all of it shows.
//
//   input:
//     source: storage              # or host_memory (default: cached in RAM)
//     bytes_per_sample: 110 KiB    # default: the model's input (token ids)
//     preprocess_per_sample: 2 ms  # one worker's CPU time per sample; default 0
//     workers: 8                   # data-loader workers per rank; default 1
//     prefetch: true               # default true
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
};

// `node` is the workload's `input:` mapping.
InputPipeline parse_input_pipeline(const ConfigNode& node);

// The ops that bring one micro-batch of `samples` samples to the GPU, in
// the order they run: a storage read, the workers' preprocessing, the copy
// to the device. All go on the copy stream, so one batch's loading follows
// the last; the caller makes the forward pass wait for the last op and,
// without prefetch, the first wait for the work before it.
std::vector<Op> input_ops(const InputPipeline& input, double samples, double model_bytes_per_sample,
                          const std::string& prefix);

// Appends input_ops to `ops` so the next compute op waits for the copy and,
// without prefetch, the first loading op waits for the compute before it.
void load_micro_batch(RankOps& ops, const InputPipeline& input, double samples, double model_bytes_per_sample,
                      const std::string& prefix);

}  // namespace simctl
