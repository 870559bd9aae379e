#include "workloads/transformer_ops.hpp"

#include <optional>

#include "workloads/activation_checkpointing.hpp"
#include "workloads/eager_op_chains.hpp"
#include "workloads/op_costs.hpp"
#include "workloads/parameter_layout.hpp"
#include "workloads/pass_geometry.hpp"
#include "workloads/tp_overlap.hpp"

namespace simctl {
namespace {

// Per-element FLOP counts of the streaming kernels. They barely matter (these
// kernels are memory-bound) but keep the FLOP totals honest.
constexpr double kRmsNormForwardFlops = 5.0;  // sum of squares, rsqrt scale, weight
constexpr double kRmsNormBackwardFlops = 10.0;
constexpr double kRopeFlops = 3.0;  // a 2x2 rotation per pair: 4 multiplies, 2 adds
// Megatron's vocab-parallel cross-entropy all-reduces three fp32 values per
// token over the TP group: the logit max, the sum of exponentials and the
// target logit.
constexpr double kVocabParallelLossBytesPerToken = 3.0 * 4.0;

std::string layer_prefix(std::int64_t layer, const std::string& tag) {
  return "layer" + std::to_string(layer) + "." + tag;
}

// `operands`: the dtype the GEMM reads (linear_dtype() for a block's linear
// layers, fp8 under FP8 training); it writes the pass dtype.
ComputeWork forward_gemm(const PassGeometry& g, std::int64_t n, std::int64_t k, DType operands) {
  return gemm_work(g.token_rows(), n, k, operands, bytes_per_element(g.p.dtype));
}

// Forward Y[T,n] = X[T,k] W[k,n]. dgrad: dX[T,k] = dY[T,n] W^T.
ComputeWork dgrad_gemm(const PassGeometry& g, std::int64_t n, std::int64_t k, DType operands) {
  return gemm_work(g.token_rows(), k, n, operands, bytes_per_element(g.p.dtype));
}

// wgrad: dW[k,n] = X^T[k,T] dY[T,n], written in the gradient dtype. The bias
// gradient (a column sum of dY) rides in the GEMM epilogue.
ComputeWork wgrad_gemm(const PassGeometry& g, std::int64_t n, std::int64_t k, DType operands) {
  return gemm_work(k, n, g.token_rows(), operands, bytes_per_element(g.p.grad_dtype));
}

ComputeWork norm_forward(const PassGeometry& g) {
  const double flops = g.p.model.norm == NormKind::layer_norm ? kLayerNormForwardFlops : kRmsNormForwardFlops;
  return streaming_work(ComputeKind::norm, g.p.dtype, g.sequence_hidden_elements(), flops, 2.0);
}

ComputeWork norm_backward(const PassGeometry& g) {
  const double flops = g.p.model.norm == NormKind::layer_norm ? kLayerNormBackwardFlops : kRmsNormBackwardFlops;
  return streaming_work(ComputeKind::norm, g.p.dtype, g.sequence_hidden_elements(), flops, 3.0);
}

// The residual add after a branch; with dropout it is Megatron's fused
// bias-dropout-add, which also writes the mask.
ComputeWork residual_add(const PassGeometry& g) {
  const double tensors = g.p.dropout > 0.0 ? with_mask(3.0, g.p.dtype) : 3.0;
  return streaming_work(ComputeKind::elementwise, g.p.dtype, g.sequence_hidden_elements(), 1.0, tensors);
}

ComputeWork activation_forward(const PassGeometry& g) {
  return mlp_activation_forward(g, g.tokens() * static_cast<double>(g.local_ffn()));
}

ComputeWork activation_backward(const PassGeometry& g) {
  return mlp_activation_backward(g, g.tokens() * static_cast<double>(g.local_ffn()));
}

// RoPE rotates this rank's Q and K heads in place (read + write); its
// backward is the inverse rotation of dQ and dK.
void append_rope(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out, bool backward = false) {
  if (g.p.model.position != PositionKind::rope) return;
  if (runs_eager_op_chains(g)) return append_rope_chain(g, name, phase, backward, out);
  const double elements = g.tokens() * static_cast<double>(g.local_hidden() + g.local_kv_width());
  out.compute(name, phase, streaming_work(ComputeKind::elementwise, g.p.dtype, elements, kRopeFlops, 2.0));
}

// A norm: one fused kernel, or eager RMSNorm's chain (eager_op_chains.hpp).
bool norm_chain(const PassGeometry& g) { return runs_eager_op_chains(g) && g.p.model.norm == NormKind::rms_norm; }

void append_norm_forward(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out) {
  if (norm_chain(g)) return append_rms_norm_forward_chain(g, name, phase, out);
  out.compute(name, phase, norm_forward(g));
}

void append_norm_backward(const PassGeometry& g, const std::string& name, std::vector<std::size_t> grads, OpList& out) {
  if (norm_chain(g)) return append_rms_norm_backward_chain(g, name, std::move(grads), out);
  out.compute(name, OpPhase::backward, norm_backward(g), std::move(grads));
}

bool activation_chain(const PassGeometry& g) { return runs_eager_op_chains(g) && g.p.model.gated_mlp; }

void append_activation_forward(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out) {
  if (activation_chain(g)) return append_swiglu_chain(g, name, phase, false, out);
  out.compute(name, phase, activation_forward(g));
}

void append_activation_backward(const PassGeometry& g, const std::string& name, OpList& out) {
  if (activation_chain(g)) return append_swiglu_chain(g, name, OpPhase::backward, true, out);
  out.compute(name, OpPhase::backward, activation_backward(g));
}

// The attention core with eager torchtitan's copies around it (none
// without its kernel chains).
void append_attention_core_forward(const PassGeometry& g, const std::string& at, OpPhase phase, OpList& out) {
  append_repeat_kv(g, at, phase, false, out);
  append_attention_forward(g, at, phase, out);
  append_attention_output_copy(g, at + "attention_out.contiguous", phase, out);
}

void append_attention_core_backward(const PassGeometry& g, const std::string& at, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  append_attention_output_copy(g, at + "attention_out.contiguous.bwd", bw, out);
  append_attention_backward(g, at, out);
  append_repeat_kv(g, at, bw, true, out);
}

// Entering a tensor-parallel region: with SP, gather the s/t row shards
// (in fp8 when they feed an fp8 GEMM and the gathers move fp8).
double sp_gather_bytes(const PassGeometry& g, bool fp8_operand) {
  const bool fp8 = fp8_operand && fp8_gathers(g);
  return fp8 ? g.hidden_elements() * bytes_per_element(linear_dtype(g.p)) : g.activation_bytes();
}

// torch's chunk-and-cat of a batch-first tensor around an SP collective
// (frameworks.yaml, tp_sequence_dim_copies): the whole tensor read and written.
ComputeWork sequence_dim_copy(double tensor_bytes) { return byte_stream(tensor_bytes, 2.0); }

// AsyncTP's fused all-gather matmul returns the gathered tensor as a view
// with the sequence dimension moved back (torch/distributed/_symmetric_memory
// _fused_all_gather_matmul_impl: A_flat unflattened and movedim'd), strided
// whenever a micro-batch holds more than one sequence; the weight gradient
// that reads it as a [tokens, hidden] matrix copies it first (frameworks.yaml,
// tp_sequence_dim_copies).
// Its callers run AsyncTP, so TP with SP holds.
void append_strided_gather_copy(const PassGeometry& g, const std::string& name, bool fp8_operand, OpList& out) {
  if (g.p.tp_sequence_dim_copies)
    out.compute(name, OpPhase::backward, sequence_dim_copy(sp_gather_bytes(g, fp8_operand)));
}

void enter_parallel_region(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out,
                           int consumer_offset = 0, bool fp8_operand = false, bool overlapped = false) {
  if (!g.tensor_parallel() || !g.p.sequence) return;
  const double bytes = sp_gather_bytes(g, fp8_operand);
  if (g.p.tp_sequence_dim_copies && !overlapped) {
    // The cat waits for the gather at once; what reads the tensor reads the copy.
    out.comm(name, phase, CollectiveOp::all_gather, bytes, 0, ModelGroup::tensor, false);
    out.compute(name + ".chunk_cat", phase, sequence_dim_copy(bytes));
    return;
  }
  out.comm(name, phase, CollectiveOp::all_gather, bytes, consumer_offset, ModelGroup::tensor, overlapped);
}

// The hidden-wide input of a column-parallel linear (QKV, MLP up) or output
// gradient of a row-parallel one (attention output, MLP down), which SP
// gathers from row shards, cast to fp8 under FP8 training: before the gather
// when it moves fp8 (the cast then covers the shard), else after it.
// `cast` appends the cast over the rows it is given.
template <typename Cast>
void gather_fp8_operand(const PassGeometry& g, const std::string& gather, OpPhase phase, OpList& out, Cast cast) {
  if (fp8_gathers(g)) {
    cast(g.sequence_rows());
    enter_parallel_region(g, gather, phase, out, 0, true);
    return;
  }
  enter_parallel_region(g, gather, phase, out);
  cast(g.tokens());
}

void column_parallel_input(const PassGeometry& g, const std::string& at, const std::string& region,
                           const std::string& linear, std::int64_t n, OpPhase phase, OpList& out) {
  gather_fp8_operand(g, at + region + ".all_gather", phase, out, [&](double rows) {
    append_fp8_input_cast(g, at + linear + ".fp8_cast", phase, rows, g.p.model.hidden, n, out);
  });
}

// Leaving it: sum the partial outputs (all-reduce, or reduce-scatter to row
// shards with SP).
void leave_parallel_region(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out,
                           int consumer_offset = 0, bool overlapped = false) {
  if (!g.tensor_parallel()) return;
  const CollectiveOp op = g.p.sequence ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  if (g.p.sequence && g.p.tp_sequence_dim_copies && !overlapped) {
    out.compute(name + ".chunk_cat", phase, sequence_dim_copy(g.activation_bytes()));
  }
  out.comm(name, phase, op, g.activation_bytes(), consumer_offset, ModelGroup::tensor, overlapped);
}

// One linear layer of a block (or the LM head) as a rank runs it:
// Y[T,n] = X[T,k] W[k,n] with this rank's k and n. Fine-tuning may freeze W
// (`trains`) or give it adapters (`adapters`).
struct Linear {
  std::string name;  // "layer3.qkv"
  std::int64_t n = 0, k = 0;
  DType operands = DType::bf16;
  bool trains = true;
  bool adapters = false;
  // Matmuls whose input gradients torch sums into this layer's (read under
  // AsyncTP, which runs torchtitan's models): its attention's input feeds wq,
  // wk and wv, its gated MLP's w1 and w3; simctl runs each as one GEMM.
  int input_grad_terms = 1;
};

Linear block_linear(const PassGeometry& g, const std::string& at, const std::string& gemm, std::int64_t layer,
                    LoraTarget target, std::int64_t n, std::int64_t k) {
  return Linear{at + gemm, n, k, linear_dtype(g.p), block_weights_train(g.p, layer), adapted(g.p, layer, target)};
}

// TE userbuffers' ring exchange of a column-parallel linear's input, cast to
// fp8 on this rank's rows first under FP8 training (fp8_gathers), pipelined
// with the GEMM's row chunks (tp_overlap.hpp).
void overlapped_column_forward(const PassGeometry& g, const std::string& gather, const Linear& lin, OpPhase phase,
                               OpList& out) {
  const bool fp8 = low_precision_operand(lin.operands);
  if (fp8) append_fp8_input_cast(g, lin.name + ".fp8_cast", phase, g.sequence_rows(), lin.k, lin.n, out);
  gather_then_gemm(g, gather, lin.name, phase, forward_gemm(g, lin.n, lin.k, lin.operands), sp_gather_bytes(g, fp8),
                   out);
}

// A row-parallel linear whose output is reduce-scattered in chunks beside it.
void overlapped_row_forward(const PassGeometry& g, const std::string& scatter, const Linear& lin, OpPhase phase,
                            OpList& out) {
  append_fp8_input_cast(g, lin.name + ".fp8_cast", phase, g.tokens(), lin.k, lin.n, out);
  gemm_then_scatter(g, lin.name, scatter, phase, forward_gemm(g, lin.n, lin.k, lin.operands), out);
}

// QLoRA dequantises the weight, the GEMM runs, adapters add their product.
void linear_forward(const PassGeometry& g, const Linear& lin, OpPhase phase, OpList& out) {
  append_dequant(g, lin.name + ".dequant", phase, lin.k, lin.n, out);
  out.compute(lin.name, phase, forward_gemm(g, lin.n, lin.k, lin.operands));
  if (lin.adapters) append_adapter_forward(g, lin.name, phase, lin.k, lin.n, out);
}

void append_block_forward(const PassGeometry& g, std::int64_t l, OpPhase phase, const std::string& tag, OpList& out) {
  const auto& m = g.p.model;
  const std::string at = layer_prefix(l, tag);
  append_norm_forward(g, at + "ln1", phase, out);
  // TE userbuffers' overlap runs full training only (refused with
  // fine-tuning at load): no adapters or frozen weights on its path.
  const bool overlap = overlaps_tp_comm(g);
  if (overlap) {
    overlapped_column_forward(g, at + "attn.all_gather",
                              block_linear(g, at, "qkv", l, LoraTarget::qkv, g.local_qkv_columns(), m.hidden), phase,
                              out);
  } else {
    column_parallel_input(g, at, "attn", "qkv", g.local_qkv_columns(), phase, out);
    linear_forward(g, block_linear(g, at, "qkv", l, LoraTarget::qkv, g.local_qkv_columns(), m.hidden), phase, out);
  }
  append_rope(g, at + "rope", phase, out);
  append_attention_core_forward(g, at, phase, out);
  if (overlap) {
    overlapped_row_forward(g, at + "attn.reduce",
                           block_linear(g, at, "attn_out", l, LoraTarget::proj, m.hidden, g.local_hidden()), phase,
                           out);
  } else {
    append_fp8_input_cast(g, at + "attn_out.fp8_cast", phase, g.tokens(), g.local_hidden(), m.hidden, out);
    linear_forward(g, block_linear(g, at, "attn_out", l, LoraTarget::proj, m.hidden, g.local_hidden()), phase, out);
    leave_parallel_region(g, at + "attn.reduce", phase, out);
  }
  out.compute(at + "residual1", phase, residual_add(g));
  append_norm_forward(g, at + "ln2", phase, out);
  if (m.moe()) {
    append_moe_forward(g, at, phase, out);
  } else {
    if (overlap) {
      overlapped_column_forward(g, at + "mlp.all_gather",
                                block_linear(g, at, "mlp_up", l, LoraTarget::fc1, g.local_mlp_up_columns(), m.hidden),
                                phase, out);
      append_activation_forward(g, at + activation_name(m), phase, out);
      overlapped_row_forward(g, at + "mlp.reduce",
                             block_linear(g, at, "mlp_down", l, LoraTarget::fc2, m.hidden, g.local_ffn()), phase, out);
    } else {
      column_parallel_input(g, at, "mlp", "mlp_up", g.local_mlp_up_columns(), phase, out);
      linear_forward(g, block_linear(g, at, "mlp_up", l, LoraTarget::fc1, g.local_mlp_up_columns(), m.hidden), phase,
                     out);
      append_activation_forward(g, at + activation_name(m), phase, out);
      append_fp8_input_cast(g, at + "mlp_down.fp8_cast", phase, g.tokens(), g.local_ffn(), m.hidden, out);
      linear_forward(g, block_linear(g, at, "mlp_down", l, LoraTarget::fc2, m.hidden, g.local_ffn()), phase, out);
      leave_parallel_region(g, at + "mlp.reduce", phase, out);
    }
  }
  out.compute(at + "residual2", phase, residual_add(g));
  append_fp8_scale_update(g, at + "fp8.scale_update", phase, out);
}

// The policy's save list (torchtitan's _save_list) holds the matmuls,
// SDPA and reduce_scatter_tensor, not all_gather_into_tensor: under SP a
// column-parallel input gathered in forward is gathered again before the
// block's backward, whose weight gradients read it. Under AsyncTP Inductor
// fuses that gather with the first re-run matmul it feeds (wk, w3), as in
// the forward; returns that matmul's index, which is then not re-run apart.
std::optional<std::size_t> regather_column_input(const PassGeometry& g, const std::string& at,
                                                 const std::string& region, const std::string& linear,
                                                 std::int64_t columns, const std::vector<BlockMatmul>& mms,
                                                 std::size_t first, std::size_t last, OpList& out) {
  if (!g.tensor_parallel() || !g.p.sequence) return std::nullopt;
  const OpPhase bw = OpPhase::backward;
  if (async_tp_overlap(g)) {
    for (std::size_t i = first; i < last; ++i) {
      if (selective_op_saves(i)) continue;
      const Linear lin{at + mms[i].name, mms[i].n, mms[i].k, linear_dtype(g.p)};
      overlapped_column_forward(g, at + region + ".all_gather", lin, bw, out);
      return i;
    }
  }
  column_parallel_input(g, at, region, linear, columns, bw, out);
  return std::nullopt;
}

// torchtitan's op-level selective AC re-runs, before a block's backward,
// what its policy did not save (activation_checkpointing.hpp): the norms,
// RoPE, the SwiGLU/GeLU and the residual adds, every second matmul, and
// with SP the two gathers of the norms' outputs.
void append_selective_op_recompute(const PassGeometry& g, std::int64_t l, OpList& out) {
  const std::string at = layer_prefix(l, "recompute.");
  const OpPhase bw = OpPhase::backward;
  const auto mms = block_matmuls(g.p.model, g.p.tensor);
  const std::size_t mlp_up = kFirstMlpMatmul, mlp_down = mms.size() - 1;  // the down-projection is last
  append_norm_forward(g, at + "ln1", bw, out);
  const auto attn_fused = regather_column_input(g, at, "attn", "qkv", g.local_qkv_columns(), mms, 0, mlp_up, out);
  append_rope(g, at + "rope", bw, out);
  append_repeat_kv(g, at, bw, false, out);
  append_attention_output_copy(g, at + "attention_out.contiguous", bw, out);
  out.compute(at + "residual1", bw, residual_add(g));
  append_norm_forward(g, at + "ln2", bw, out);
  const auto mlp_fused =
      regather_column_input(g, at, "mlp", "mlp_up", g.local_mlp_up_columns(), mms, mlp_up, mlp_down, out);
  append_activation_forward(g, at + activation_name(g.p.model), bw, out);
  for (std::size_t i = 0; i < mms.size(); ++i) {
    if (selective_op_saves(i) || attn_fused == i || mlp_fused == i) continue;
    // A Float8Linear re-runs its matmul in fp8, as in the forward.
    out.compute(at + mms[i].name, bw, forward_gemm(g, mms[i].n, mms[i].k, linear_dtype(g.p)));
  }
}

// A frozen column-parallel linear under TE userbuffers (fine-tuning): no
// wgrad GEMM to hide the input gradient's reduce-scatter beside, so TE
// pipelines it with the dgrad GEMM's row chunks (its rs_dgrad overlap),
// which accumulate onto what the adapters' GEMMs added first.
void frozen_column_backward_overlapped(const PassGeometry& g, const Linear& lin, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  if (lin.adapters) {
    // Its reader: dA, after dB and d(xA).
    enter_parallel_region(g, lin.name + ".input.all_gather", bw, out, 2, low_precision_operand(lin.operands));
    append_adapter_backward(g, lin.name, lin.k, lin.n, out);
  }
  gemm_then_scatter(g, lin.name + ".dgrad", lin.name + ".dgrad.reduce", bw, dgrad_gemm(g, lin.n, lin.k, lin.operands),
                    out);
}

// A trained column-parallel linear whose gathered input autograd saved
// (DTensor's TP, torchtitan's): the wgrad reads it, nothing is gathered
// again, and the input gradient's reduction is issued after the layer's
// matmuls (autograd runs each matmul's dgrad and wgrad together, and sums
// the layer's input gradients before the redistribute's backward) and
// waited on by the next op. Under AsyncTP (full training only), Inductor
// fuses a reduce-scatter with its matmul only when one matmul produces its
// input (_find_producer_matmul in torch/_inductor/fx_passes/
// micro_pipeline_tp.py, pytorch@5f65158): a GPT's fc1, not the sum of wq's,
// wk's and wv's input gradients.
void saved_input_column_backward(const PassGeometry& g, const Linear& lin, std::vector<std::size_t> grads,
                                 bool async_tp, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  const ComputeWork dgrad = dgrad_gemm(g, lin.n, lin.k, lin.operands);
  const ComputeWork wgrad = wgrad_gemm(g, lin.n, lin.k, lin.operands);
  if (async_tp) append_strided_gather_copy(g, lin.name + ".input.contiguous", low_precision_operand(lin.operands), out);
  if (async_tp && lin.input_grad_terms == 1) {
    gemm_then_scatter(g, lin.name + ".dgrad", lin.name + ".dgrad.reduce", bw, dgrad, out);
    out.compute(lin.name + ".wgrad", bw, wgrad, std::move(grads));
    return;
  }
  out.compute(lin.name + ".dgrad", bw, dgrad);
  out.compute(lin.name + ".wgrad", bw, wgrad, std::move(grads));
  leave_parallel_region(g, lin.name + ".dgrad.reduce", bw, out);
}

// The backward of a column-parallel GEMM's input side: with SP, re-gather the
// saved row-sharded input for the weight gradient (overlapping the dgrad GEMM),
// then reduce the input gradient while the wgrad GEMM runs (Megatron's
// asynchronous TP all-reduce / reduce-scatter). In fp8 the output gradient
// is cast first and the saved input is re-gathered as the fp8 it was saved
// in when gathers move fp8. A frozen weight has no wgrad; its adapters'
// GEMMs (which read the input and add to its gradient) run before the
// reduction instead, and the input is gathered only if something reads it.
// A block's layers are TE's, whose userbuffers run both collectives in bulk
// beside the GEMMs when overlapping (tp_overlap.hpp), or compiled blocks
// under AsyncTP; the LM head is neither. A DTensor framework (torchtitan's;
// frameworks.yaml, tp_async_backward) saves the gathered input instead.
void column_parallel_backward(const PassGeometry& g, const Linear& lin, std::vector<std::size_t> grads, OpList& out,
                              bool te_layer = true) {
  const OpPhase bw = OpPhase::backward;
  const bool fp8 = low_precision_operand(lin.operands);
  const bool bulk = te_layer && userbuffers_overlap(g);
  append_dequant(g, lin.name + ".dequant.bwd", bw, lin.k, lin.n, out);
  if (fp8) append_fp8_grad_cast(g, lin.name + ".grad.fp8_cast", g.tokens(), lin.n, out);
  if (fp8) append_fp8_weight_transpose(g, lin.name + ".weight.fp8_transpose", lin.k, lin.n, out);
  if (te_layer && async_tp_overlap(g)) {
    saved_input_column_backward(g, lin, std::move(grads), true, out);
    return;
  }
  if (!g.p.tp_async_backward && !bulk && lin.trains && !lin.adapters) {
    saved_input_column_backward(g, lin, std::move(grads), false, out);
    return;
  }
  if (bulk && !lin.trains) {
    frozen_column_backward_overlapped(g, lin, out);
    return;
  }
  if (lin.trains || lin.adapters) {
    // Its reader: the wgrad after the dgrad, or dA after the dgrad, dB and d(xA).
    enter_parallel_region(g, lin.name + ".input.all_gather", bw, out, lin.trains ? 1 : 3, fp8, bulk);
  }
  const ComputeWork dgrad = dgrad_gemm(g, lin.n, lin.k, lin.operands);
  out.compute(lin.name + ".dgrad", bw, bulk ? beside_bulk_comm(g, dgrad) : dgrad);
  if (lin.adapters) append_adapter_backward(g, lin.name, lin.k, lin.n, out);
  leave_parallel_region(g, lin.name + ".dgrad.reduce", bw, out, lin.trains ? 1 : 0, bulk);
  if (!lin.trains) return;
  const ComputeWork wgrad = wgrad_gemm(g, lin.n, lin.k, lin.operands);
  out.compute(lin.name + ".wgrad", bw, bulk ? beside_bulk_comm(g, wgrad) : wgrad, std::move(grads));
}

// A row-parallel linear's backward: its output gradient (hidden wide)
// SP-gathered and, in fp8, cast; dgrad, adapters, and wgrad unless frozen.
void row_parallel_backward(const PassGeometry& g, const Linear& lin, std::vector<std::size_t> grads, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  const bool fp8 = low_precision_operand(lin.operands);
  if (fp8) append_fp8_weight_transpose(g, lin.name + ".weight.fp8_transpose", lin.k, lin.n, out);
  if (overlaps_tp_comm(g)) {
    if (fp8) append_fp8_grad_cast(g, lin.name + ".grad.fp8_cast", g.sequence_rows(), g.p.model.hidden, out);
    gather_then_gemm(g, lin.name + ".grad.all_gather", lin.name + ".dgrad", bw,
                     dgrad_gemm(g, lin.n, lin.k, lin.operands), sp_gather_bytes(g, fp8), out);
    if (lin.trains && async_tp_overlap(g)) append_strided_gather_copy(g, lin.name + ".grad.contiguous", fp8, out);
  } else {
    gather_fp8_operand(g, lin.name + ".grad.all_gather", bw, out, [&](double rows) {
      append_fp8_grad_cast(g, lin.name + ".grad.fp8_cast", rows, g.p.model.hidden, out);
    });
    append_dequant(g, lin.name + ".dequant.bwd", bw, lin.k, lin.n, out);
    out.compute(lin.name + ".dgrad", bw, dgrad_gemm(g, lin.n, lin.k, lin.operands));
  }
  if (lin.adapters) append_adapter_backward(g, lin.name, lin.k, lin.n, out);
  if (lin.trains) out.compute(lin.name + ".wgrad", bw, wgrad_gemm(g, lin.n, lin.k, lin.operands), std::move(grads));
}

void append_mlp_backward(const PassGeometry& g, std::int64_t l, const std::string& at,
                         std::vector<std::size_t> down_grads, std::vector<std::size_t> up_grads, OpList& out) {
  const auto& m = g.p.model;
  row_parallel_backward(g, block_linear(g, at, "mlp_down", l, LoraTarget::fc2, m.hidden, g.local_ffn()),
                        std::move(down_grads), out);
  append_activation_backward(g, at + activation_name(m) + ".bwd", out);
  Linear up = block_linear(g, at, "mlp_up", l, LoraTarget::fc1, g.local_mlp_up_columns(), m.hidden);
  up.input_grad_terms = m.gated_mlp ? 2 : 1;
  column_parallel_backward(g, up, std::move(up_grads), out);
}

// Backward of one block, mirroring the forward. The gradient of a residual
// add is free for its skip path but must be summed with the branch's input
// gradient once the branch is done, hence one add per residual.
void append_block_backward(const PassGeometry& g, std::int64_t l, OpList& out) {
  const auto& m = g.p.model;
  const OpPhase bw = OpPhase::backward;
  const std::string at = layer_prefix(l, "");
  auto grads = [&](std::initializer_list<BlockTensor> tensors) { return block_tensor_indices(m, l, tensors); };
  if (m.moe()) {
    append_moe_backward(g, l, at, out);
  } else {
    append_mlp_backward(g, l, at, grads({BlockTensor::mlp_down_weight, BlockTensor::mlp_down_bias}),
                        grads({BlockTensor::mlp_gate_weight, BlockTensor::mlp_gate_bias, BlockTensor::mlp_up_weight,
                               BlockTensor::mlp_up_bias}),
                        out);
  }
  append_norm_backward(g, at + "ln2.bwd", grads({BlockTensor::ln2_weight, BlockTensor::ln2_bias}), out);
  out.compute(at + "residual2.bwd", bw, residual_add(g));
  row_parallel_backward(g, block_linear(g, at, "attn_out", l, LoraTarget::proj, m.hidden, g.local_hidden()),
                        grads({BlockTensor::attn_out_weight, BlockTensor::attn_out_bias}), out);
  append_attention_core_backward(g, at, out);
  append_rope(g, at + "rope.bwd", bw, out, true);
  Linear qkv = block_linear(g, at, "qkv", l, LoraTarget::qkv, g.local_qkv_columns(), m.hidden);
  qkv.input_grad_terms = 3;
  column_parallel_backward(g, qkv, grads({BlockTensor::qkv_weight, BlockTensor::qkv_bias}), out);
  append_norm_backward(g, at + "ln1.bwd", grads({BlockTensor::ln1_weight, BlockTensor::ln1_bias}), out);
  out.compute(at + "residual1.bwd", bw, residual_add(g));
  append_fp8_scale_update(g, at + "fp8.scale_update.bwd", bw, out);
}

double logit_elements(const PassGeometry& g) { return g.tokens() * static_cast<double>(g.local_vocab()); }

// Tensors an embedding pass streams: token rows and the output, plus the
// position rows when positions are learned and the token-type rows when the
// model has them.
double embedding_tensors(const PassGeometry& g) {
  const auto& m = g.p.model;
  return 2.0 + (m.position == PositionKind::learned ? 1.0 : 0.0) + (m.token_types > 0 ? 1.0 : 0.0);
}

bool post_norm(const PassGeometry& g) { return g.p.model.norm_placement == NormPlacement::post; }

void append_embedding_forward(const PassGeometry& g, OpList& out) {
  // Gathers token rows (of this rank's vocabulary shard), adds position rows,
  // writes the block input; TP ranks then sum their partial lookups.
  out.compute("embedding", OpPhase::forward,
              streaming_work(ComputeKind::embedding, g.p.dtype, g.hidden_elements(), 1.0, embedding_tensors(g)));
  leave_parallel_region(g, "embedding.reduce", OpPhase::forward, out);
  if (post_norm(g)) append_norm_forward(g, "embedding.ln", OpPhase::forward, out);
  if (g.p.dropout > 0.0) {
    out.compute("embedding.dropout", OpPhase::forward,
                streaming_work(ComputeKind::elementwise, g.p.dtype, g.sequence_hidden_elements(), kDropoutFlops,
                               with_mask(2.0, g.p.dtype)));
  }
}

// Fused softmax cross-entropy (Megatron): reads the logits, keeps the
// softmax in place. Under PyTorch autocast, cross_entropy runs in fp32: the
// bf16 logits are upcast into an fp32 copy (read 2, write 4 bytes an
// element); log_softmax over a row wider than its one-pass kernel holds
// reads the row three times (max, sum of exponentials, output) and writes it
// once (16); the backward fills the fp32 gradient of the log-probabilities
// (4), log_softmax's backward reads that gradient twice (its sum, then the
// output) and the output once and writes its gradient (16), which is cast
// back to the pass dtype (6). Checked against our H100 measurement of that
// loss (tests/workloads/framework_costs_test.cpp).
constexpr double kFp32LogSoftmaxTensors = 4.0;

}  // namespace

void append_loss_forward(const PassGeometry& g, double elements, OpList& out) {
  if (!g.p.loss_in_fp32) {
    out.compute("cross_entropy", OpPhase::forward,
                streaming_work(ComputeKind::softmax, g.p.dtype, elements, kLossForwardFlops, 2.0));
    return;
  }
  const double cast_tensors = 1.0 + static_cast<double>(bytes_per_element(g.p.dtype)) / 4.0;
  out.compute("cross_entropy.upcast", OpPhase::forward,
              streaming_work(ComputeKind::elementwise, DType::fp32, elements, 0.0, cast_tensors));
  out.compute("cross_entropy", OpPhase::forward,
              streaming_work(ComputeKind::softmax, DType::fp32, elements, kLossForwardFlops, kFp32LogSoftmaxTensors));
}

void append_loss_backward(const PassGeometry& g, double elements, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  if (!g.p.loss_in_fp32) {
    out.compute("cross_entropy.bwd", bw,
                streaming_work(ComputeKind::softmax, g.p.dtype, elements, kLossBackwardFlops, 2.0));
    return;
  }
  const double cast_tensors = 1.0 + static_cast<double>(bytes_per_element(g.p.dtype)) / 4.0;
  out.compute("cross_entropy.grad_fill", bw, streaming_work(ComputeKind::elementwise, DType::fp32, elements, 0.0, 1.0));
  out.compute("cross_entropy.bwd", bw,
              streaming_work(ComputeKind::softmax, DType::fp32, elements, kLossBackwardFlops, kFp32LogSoftmaxTensors));
  out.compute("cross_entropy.downcast", bw,
              streaming_work(ComputeKind::elementwise, DType::fp32, elements, 0.0, cast_tensors));
}

namespace {

void append_head_forward(const PassGeometry& g, OpList& out) {
  const auto& m = g.p.model;
  if (!post_norm(g)) append_norm_forward(g, "final_ln", OpPhase::forward, out);
  if (m.head.kind != HeadKind::causal_lm) return append_task_head_forward(g, out);
  enter_parallel_region(g, "lm_head.all_gather", OpPhase::forward, out);
  out.compute("lm_head", OpPhase::forward, forward_gemm(g, g.local_vocab(), m.hidden, g.p.dtype));
  append_loss_forward(g, logit_elements(g), out);
  if (g.tensor_parallel()) {
    out.comm("cross_entropy.all_reduce", OpPhase::forward, CollectiveOp::all_reduce,
             kVocabParallelLossBytesPerToken * g.tokens());
  }
}

// A tied LM head's weight is the token embedding, whose gradient is complete
// only after the embedding backward, so the head's wgrad completes nothing.
void append_lm_head_backward(const PassGeometry& g, OpList& out) {
  const auto& m = g.p.model;
  append_loss_backward(g, logit_elements(g), out);
  std::vector<std::size_t> head_grads;
  if (!m.tied_embeddings) head_grads.push_back(lm_head_index(m));
  const Linear head{"lm_head", g.local_vocab(), m.hidden, g.p.dtype, head_trains(g.p), false};
  column_parallel_backward(g, head, std::move(head_grads), out, false);
}

void append_head_backward(const PassGeometry& g, OpList& out) {
  if (g.p.model.head.kind == HeadKind::causal_lm) {
    append_lm_head_backward(g, out);
  } else {
    append_task_head_backward(g, out);
  }
  if (!post_norm(g)) append_norm_backward(g, "final_ln.bwd", final_norm_indices(g.p.model), out);
}

void append_embedding_backward(const PassGeometry& g, OpList& out) {
  if (post_norm(g)) append_norm_backward(g, "embedding.ln.bwd", embedding_norm_indices(g.p.model), out);
  enter_parallel_region(g, "embedding.grad.all_gather", OpPhase::backward, out);
  // Scatter-adds dX rows into the token table and sums the position rows.
  out.compute("embedding.bwd", OpPhase::backward,
              streaming_work(ComputeKind::embedding, g.p.dtype, g.hidden_elements(), 2.0, embedding_tensors(g)),
              embedding_tensor_indices(g.p.model));
}

void apply_time_factor(std::vector<ModelOp>& ops, double factor) {
  for (auto& op : ops) {
    if (!op.comm) op.work = with_time_factor(op.work, factor);
  }
}

}  // namespace

ComputeWork mlp_activation_forward(const PassGeometry& g, double elements) {
  const bool glu = g.p.model.gated_mlp;
  return streaming_work(ComputeKind::elementwise, g.p.dtype, elements, glu ? kSwigluForwardFlops : kGeluForwardFlops,
                        glu ? 3.0 : 2.0);
}

ComputeWork mlp_activation_backward(const PassGeometry& g, double elements) {
  const bool glu = g.p.model.gated_mlp;
  return streaming_work(ComputeKind::elementwise, g.p.dtype, elements, glu ? kSwigluBackwardFlops : kGeluBackwardFlops,
                        glu ? 5.0 : 3.0);
}

std::string activation_name(const TransformerSpec& m) { return m.gated_mlp ? "swiglu" : "gelu"; }

ComputeWork with_time_factor(ComputeWork work, double factor) {
  work.flops *= factor;
  work.memory_bytes *= factor;
  work.sustained = true;
  return work;
}

PassShape whole_model_shape(const TransformerSpec& model, std::int64_t micro_batch, DType dtype, DType grad_dtype) {
  PassShape p;
  p.model = model;
  p.micro_batch = micro_batch;
  p.dtype = dtype;
  p.grad_dtype = grad_dtype;
  return p;
}

std::vector<ModelOp> forward_ops(const PassShape& p) {
  std::vector<ModelOp> ops;
  OpList out(ops);
  const PassGeometry g(p);
  if (p.embedding) append_embedding_forward(g, out);
  for (std::int64_t l = p.first_layer; l < p.last_layer_end(); ++l)
    append_block_forward(g, l, OpPhase::forward, "", out);
  if (p.head) append_head_forward(g, out);
  apply_time_factor(ops, p.kernel_time_factor);
  return ops;
}

std::vector<ModelOp> backward_ops(const PassShape& p) {
  std::vector<ModelOp> ops;
  OpList out(ops);
  const PassGeometry g(p);
  if (p.head) append_head_backward(g, out);
  for (std::int64_t l = p.last_layer_end() - 1; l >= p.first_layer && block_runs_backward(p, l); --l) {
    // Recomputed forward work is booked as backward time, as profilers show it.
    if (block_checkpointed(p.recompute, p.recompute_blocks, l)) {
      append_block_forward(g, l, OpPhase::backward, "recompute.", out);
    }
    if (p.recompute == ActivationRecompute::selective_op) append_selective_op_recompute(g, l, out);
    append_block_backward(g, l, out);
  }
  if (p.embedding && embedding_trains(p)) append_embedding_backward(g, out);
  apply_time_factor(ops, p.kernel_time_factor);
  return ops;
}

}  // namespace simctl
