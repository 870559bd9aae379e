#pragma once
// Sizes one tensor-parallel rank sees in a pass, and the op-list builder the
// pass generators share. Internal to workloads/.
#include <string>
#include <vector>

#include "workloads/op_costs.hpp"
#include "workloads/transformer_ops.hpp"

namespace simctl {

// Per-rank dimensions under Megatron TP (heads, MLP columns and the
// vocabulary split t ways), SP (norms, dropout and residuals on s/t rows)
// and CP (every op but attention's core on the rank's s/cp positions).
struct PassGeometry {
  explicit PassGeometry(const PassShape& shape) : p(shape) {}

  const PassShape& p;

  // Sequence positions this rank works on: seq_len / context.
  std::int64_t local_seq() const { return p.model.seq_len / p.context; }
  std::int64_t token_rows() const { return p.micro_batch * local_seq(); }
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
  bool context_parallel() const { return p.context > 1; }

  // A mixture of experts under EP e and TP t (Megatron-core's all-to-all
  // dispatcher): each rank routes its sequence rows, sending each token to
  // top_k experts, and with balanced routing receives as many token copies as
  // it sent; TP ranks then gather their shards, so every rank of an expert's
  // TP group runs all tokens * top_k copies that reach its EP rank, spread
  // evenly over its experts / e local experts, on t-way split expert MLPs.
  std::int64_t local_experts() const { return p.model.experts / p.expert; }
  double routed_rows() const { return sequence_rows() * static_cast<double>(p.model.experts_per_token); }
  double expert_slots() const { return tokens() * static_cast<double>(p.model.experts_per_token); }
  // Rows of one local expert's GEMMs (rounded up where routing is uneven).
  std::int64_t expert_rows() const {
    const std::int64_t slots = token_rows() * p.model.experts_per_token;
    return (slots + local_experts() - 1) / local_experts();
  }
  std::int64_t local_expert_ffn() const { return p.model.expert_width() / p.tensor; }
  std::int64_t local_expert_up_columns() const { return p.model.expert_up_width() / p.tensor; }
  double routed_bytes() const {
    return routed_rows() * static_cast<double>(p.model.hidden) * bytes_per_element(p.dtype);
  }
  double expert_slot_bytes() const {
    return expert_slots() * static_cast<double>(p.model.hidden) * bytes_per_element(p.dtype);
  }
  bool expert_parallel() const { return p.expert > 1; }
};

// Appends ModelOps, naming TP collectives and compute ops alike.
class OpList {
 public:
  explicit OpList(std::vector<ModelOp>& out) : out_(out) {}

  void compute(std::string name, OpPhase phase, const ComputeWork& work, std::vector<std::size_t> grads = {}) {
    out_.push_back(ModelOp{std::move(name), phase, work, std::move(grads), std::nullopt});
  }
  void comm(std::string name, OpPhase phase, CollectiveOp op, double bytes, int consumer_offset = 0,
            ModelGroup group = ModelGroup::tensor, bool overlapped = false) {
    out_.push_back(ModelOp{
        std::move(name), phase, ComputeWork{}, {}, TensorComm{op, bytes, consumer_offset, group, overlapped, false}});
  }
  // One step of a context-parallel ring (context_parallel.hpp); a negative
  // consumer_offset: no compute op waits for its receive.
  void context_ring_step(std::string name, OpPhase phase, double bytes, int consumer_offset, ContextRing ring,
                         bool start) {
    TensorComm comm{CollectiveOp::all_gather, bytes, consumer_offset, ModelGroup::context, true, true};
    comm.ring = ring;
    comm.ring_start = start;
    out_.push_back(ModelOp{std::move(name), phase, ComputeWork{}, {}, comm});
  }
  std::size_t size() const { return out_.size(); }
  // Ops `first` onwards run inside the host call of the op before them
  // (Op::host_issued): a fused kernel loop in C++, not one Python call each.
  void issued_with_previous_from(std::size_t first) {
    for (std::size_t i = first; i < out_.size(); ++i) out_[i].host_issued = false;
  }
  // Op `index` completes these parameter gradients.
  void set_grads(std::size_t index, std::vector<std::size_t> grads) { out_[index].grads_ready = std::move(grads); }
  // One ring-exchange step over the TP group: `bytes` to the next rank,
  // as many from the previous.
  void ring_step(std::string name, OpPhase phase, double bytes, int consumer_offset) {
    out_.push_back(
        ModelOp{std::move(name),
                phase,
                ComputeWork{},
                {},
                TensorComm{CollectiveOp::all_gather, bytes, consumer_offset, ModelGroup::tensor, true, true}});
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

inline constexpr double kGeluForwardFlops = 8.0;       // tanh approximation
inline constexpr double kLayerNormForwardFlops = 8.0;  // mean, variance, normalise, scale and shift
inline constexpr double kLayerNormBackwardFlops = 16.0;
inline constexpr double kGeluBackwardFlops = 16.0;
inline constexpr double kSwigluForwardFlops = 6.0;  // SiLU (exp, add, divide, multiply) times up
inline constexpr double kSwigluBackwardFlops = 12.0;

// The MLP activation over `elements` values: GeLU reads x and writes y
// (backward: x, dy -> dx); SwiGLU reads gate and up and writes their product
// (backward: gate, up, dy -> dgate, dup).
ComputeWork mlp_activation_forward(const PassGeometry& g, double elements);
ComputeWork mlp_activation_backward(const PassGeometry& g, double elements);
std::string activation_name(const TransformerSpec& m);  // "swiglu" or "gelu"

// The loss over `elements` logits: one fused kernel, or PyTorch autocast's
// fp32 upcast, log-softmax and their backward (loss_in_fp32).
void append_loss_forward(const PassGeometry& g, double elements, OpList& out);
void append_loss_backward(const PassGeometry& g, double elements, OpList& out);
// An encoder's task head (task_head_ops.cpp) after the last block (and the
// final norm of a pre-LN model): masked LM, sequence classification or
// question answering, with its loss; and its backward, which completes the
// head's parameter gradients.
void append_task_head_forward(const PassGeometry& g, OpList& out);
void append_task_head_backward(const PassGeometry& g, OpList& out);

// FP8 training's extra kernels (fp8_ops.cpp); each appends nothing unless the
// pass runs its linear layers in fp8.
// The dtype of a linear layer's GEMM operands: fp8 (or fp4) under FP8
// training.
DType linear_dtype(const PassShape& p);
// Whether a GEMM reads operands cast by FP8 training's kernels (fp8 or fp4).
bool low_precision_operand(DType d);
// Whether the SP all-gathers feeding fp8 GEMMs move fp8 (tp_all_gather, or
// tp_comm_overlap: TE's userbuffers gather fp8).
bool fp8_gathers(const PassGeometry& g);
// A linear's `rows` x `k` input cast to fp8 with its transpose, plus this
// pass's share of casting its k x `n` (per rank) weight.
void append_fp8_input_cast(const PassGeometry& g, const std::string& name, OpPhase phase, double rows, std::int64_t k,
                           std::int64_t n, OpList& out);
// A linear's `rows` x `n` output gradient cast to fp8 (E5M2) with its transpose.
void append_fp8_grad_cast(const PassGeometry& g, const std::string& name, double rows, std::int64_t n, OpList& out);
// A weight held in fp8 only (fp8.params) transposed for its dgrad GEMM
// (Hopper's fp8 GEMMs take the TN layout only), made afresh each backward
// rather than cached beside the weight.
void append_fp8_weight_transpose(const PassGeometry& g, const std::string& name, std::int64_t k, std::int64_t n,
                                 OpList& out);
// Delayed scaling's per-layer amax history roll and scale update.
void append_fp8_scale_update(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out);

// Fine-tuning (lora_ops.cpp): which weights train, and LoRA's and QLoRA's
// extra kernels, each appending nothing where they do not apply.
bool block_weights_train(const PassShape& p, std::int64_t layer);
bool embedding_trains(const PassShape& p);
bool head_trains(const PassShape& p);
bool block_runs_backward(const PassShape& p, std::int64_t layer);
// Whether `target` of block `layer` carries adapters.
bool adapted(const PassShape& p, std::int64_t layer, std::optional<LoraTarget> target);
// QLoRA: the base linear's k x n (per rank) nf4 weight dequantised to bf16
// before a GEMM reads it.
void append_dequant(const PassGeometry& g, const std::string& name, OpPhase phase, std::int64_t k, std::int64_t n,
                    OpList& out);
// The adapters of a linear whose per-rank GEMM is [T x k] x [k x n]:
// forward x A then (x A) B added to the output; backward dB, d(xA), dA and
// d(xA) A^T added to dx.
void append_adapter_forward(const PassGeometry& g, const std::string& name, OpPhase phase, std::int64_t k,
                            std::int64_t n, OpList& out);
void append_adapter_backward(const PassGeometry& g, const std::string& name, std::int64_t k, std::int64_t n,
                             OpList& out);
inline constexpr int kAdapterBackwardGemms = 4;

// The block of attention a fused kernel computes: `queries` query positions
// against `keys` key positions (causal: the masked half skipped) on `heads`
// query heads and `kv_heads` key/value heads of this rank, for each of the
// micro-batch's sequences.
struct AttentionBlock {
  std::int64_t queries = 0, keys = 0, heads = 0, kv_heads = 0;
  bool causal = true;
};
// One fused attention kernel over `block`: `flops_ratio` times the forward's
// products; it streams `query_tensors` query-sized tensors (Q, O, dO, dQ) and
// `kv_tensors` key-sized ones (K, V, dK, dV).
ComputeWork fused_attention_work(const PassGeometry& g, const AttentionBlock& block, double flops_ratio,
                                 double query_tensors, double kv_tensors, bool backward);

// Core attention of one block: FlashAttention or Megatron's unfused kernels.
void append_attention_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out);
void append_attention_backward(const PassGeometry& g, const std::string& prefix, OpList& out);

// A mixture-of-experts block's MLP (moe_ops.cpp): router, token dispatch,
// grouped expert GEMMs, combine; and its backward.
void append_moe_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out);
void append_moe_backward(const PassGeometry& g, std::int64_t layer, const std::string& prefix, OpList& out);

}  // namespace simctl
