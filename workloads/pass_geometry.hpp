#pragma once
// Sizes one tensor-parallel rank sees in a pass, and the op-list builder the
// pass generators share. Internal to workloads/.
#include <string>
#include <vector>

#include "workloads/op_costs.hpp"
#include "workloads/transformer_ops.hpp"

namespace simctl {

// Per-rank dimensions under Megatron TP (heads, MLP columns and the
// vocabulary split t ways) and SP (norms, dropout and residuals on s/t rows).
struct PassGeometry {
  explicit PassGeometry(const PassShape& shape) : p(shape) {}

  const PassShape& p;

  std::int64_t token_rows() const { return p.micro_batch * p.model.seq_len; }
  double tokens() const { return static_cast<double>(token_rows()); }
  // Rows the sequence-parallel regions work on (all of them without SP).
  double sequence_rows() const { return p.sequence ? tokens() / static_cast<double>(p.tensor) : tokens(); }
  double hidden_elements() const { return tokens() * static_cast<double>(p.model.hidden); }
  double sequence_hidden_elements() const { return sequence_rows() * static_cast<double>(p.model.hidden); }
  std::int64_t local_heads() const { return p.model.heads / p.tensor; }
  std::int64_t local_qkv_columns() const { return p.model.qkv_width() / p.tensor; }
  std::int64_t local_kv_heads() const { return p.model.kv_heads / p.tensor; }
  std::int64_t local_kv_width() const { return p.model.kv_width() / p.tensor; }
  std::int64_t local_ffn() const { return p.model.ffn / p.tensor; }
  std::int64_t local_mlp_up_columns() const { return p.model.mlp_up_width() / p.tensor; }  // gate + up when gated
  std::int64_t local_hidden() const { return p.model.hidden / p.tensor; }                  // attention output width
  std::int64_t local_vocab() const { return (p.model.vocab + p.tensor - 1) / p.tensor; }
  // The full activation a TP collective moves: b*s*h values.
  double activation_bytes() const { return hidden_elements() * bytes_per_element(p.dtype); }
  bool tensor_parallel() const { return p.tensor > 1; }
};

// Appends ModelOps, naming TP collectives and compute ops alike.
class OpList {
 public:
  explicit OpList(std::vector<ModelOp>& out) : out_(out) {}

  void compute(std::string name, OpPhase phase, const ComputeWork& work, std::vector<std::size_t> grads = {}) {
    out_.push_back(ModelOp{std::move(name), phase, work, std::move(grads), std::nullopt});
  }
  void comm(std::string name, OpPhase phase, CollectiveOp op, double bytes, int consumer_offset = 0) {
    out_.push_back(ModelOp{std::move(name), phase, ComputeWork{}, {}, TensorComm{op, bytes, consumer_offset}});
  }

 private:
  std::vector<ModelOp>& out_;
};

// Streaming kernels' FLOP counts per element (they barely matter: these
// kernels are memory-bound, but they keep FLOP totals honest).
inline constexpr double kDropoutFlops = 2.0;  // compare a random draw, scale
// A dropout mask is one byte per element (PyTorch's bool mask).
inline constexpr double kMaskBytesPerElement = 1.0;

// Tensors touched by a dropout-like kernel: read x, write y, write the mask.
inline double with_mask(double tensors, DType dtype) {
  return tensors + kMaskBytesPerElement / bytes_per_element(dtype);
}

// Core attention of one block: FlashAttention or Megatron's unfused kernels.
void append_attention_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out);
void append_attention_backward(const PassGeometry& g, const std::string& prefix, OpList& out);

}  // namespace simctl
