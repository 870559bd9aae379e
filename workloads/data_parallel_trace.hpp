#pragma once
// PyTorch nn.DataParallel: one process drives every GPU from the master GPU
// (rank 0). Per forward call: the master broadcasts the weights to the other
// GPUs (replicate), scatters the input batch, every GPU runs its slice
// forward, the outputs (the logits) are gathered onto the master, which
// computes the loss for the whole batch and scatters the logits' gradients
// back; after every GPU's backward, the gradients are summed onto the master
// (reduce) and only the master runs the optimizer. Everything funnels through
// the master GPU's links, which is why DDP beats it.
// (torch/nn/parallel/data_parallel.py: replicate, scatter, parallel_apply,
// gather; torch/nn/parallel/_functions.py: Broadcast, ReduceAddCoalesced.)
#include "workloads/trace.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

Trace build_data_parallel_trace(const WorkloadSpec& spec);

}  // namespace simctl
