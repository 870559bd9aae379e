#pragma once
// The compute ops of one forward and one backward pass of a GPT over one
// micro-batch, in execution order, each with the FLOPs and bytes the roofline
// needs and, for backward ops, the parameter gradients it completes (DDP's
// bucket all-reduces wait on those). Parallel planners wrap these lists into
// per-rank traces; this file knows nothing about ranks or streams.
#include <cstddef>
#include <string>
#include <vector>

#include "models/devices/compute_work.hpp"
#include "workloads/trace.hpp"
#include "workloads/transformer_spec.hpp"

namespace simctl {

struct ModelOp {
  std::string name;
  OpPhase phase = OpPhase::forward;
  ComputeWork work;
  std::vector<std::size_t> grads_ready;  // indices into parameter_tensors(model)
};

struct PassShape {
  TransformerSpec model;
  std::int64_t micro_batch = 1;    // sequences in this pass
  DType dtype = DType::bf16;       // activations and weights
  DType grad_dtype = DType::bf16;  // weight gradients (written by wgrad GEMMs)
  bool recompute = false;          // full activation recompute: re-run each block before its backward
};

// Embedding, every block, final LayerNorm, LM head and the loss.
std::vector<ModelOp> forward_ops(const PassShape& shape);
// The loss gradient, LM head, blocks in reverse, then the embedding.
std::vector<ModelOp> backward_ops(const PassShape& shape);

// Causal attention: FlashAttention skips the masked upper triangle, so it
// executes half the score/value products of 4*b*s^2*h.
inline constexpr double kCausalAttentionFraction = 0.5;
// FlashAttention-2 backward runs 5 matrix products per block against the
// forward's 2 (dQ, dK, dV, dP and recomputing P).
inline constexpr double kAttentionBackwardFlopsRatio = 2.5;

}  // namespace simctl
