// Core attention (scores, softmax, dropout, weighted values) of one block as
// one tensor-parallel rank runs it, on its heads / t heads.
#include "workloads/context_parallel.hpp"
#include "workloads/pass_geometry.hpp"

namespace simctl {
namespace {

constexpr double kSoftmaxForwardFlops = 5.0;  // scale, mask, max, exp, normalise
constexpr double kSoftmaxBackwardFlops = 4.0;

// `batch` independent products C[m,n] = A[m,k] B[k,n] (torch.baddbmm/bmm).
ComputeWork batched_gemm(std::int64_t batch, std::int64_t m, std::int64_t n, std::int64_t k, DType dtype) {
  ComputeWork w = gemm_work(m, n, k, dtype, bytes_per_element(dtype));
  w.batch = batch;
  w.flops *= static_cast<double>(batch);
  w.memory_bytes *= static_cast<double>(batch);
  return w;
}

std::int64_t head_batch(const PassGeometry& g) { return g.p.micro_batch * g.local_heads(); }

// Elements of the b * (a/t) * s * s score tensor the unfused path materialises.
double score_elements(const PassGeometry& g) {
  const double s = static_cast<double>(g.p.model.seq_len);
  return static_cast<double>(head_batch(g)) * s * s;
}

// The fused kernel the config chose (unfused never reaches here).
FusedAttention fused_kernel(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::flash3: return FusedAttention::flash3;
    case AttentionKernel::cudnn: return FusedAttention::cudnn;
    default: return FusedAttention::flash2;
  }
}

bool is_fused(AttentionKernel kernel) { return kernel != AttentionKernel::unfused; }

// GPT's attention is causal (kCausalAttentionFraction halves the FLOPs): the
// kernel skips the masked tiles and is priced by its causal curve; an
// encoder's computes every tile. It streams
// `query_sized` tensors of this rank's query heads (Q, O, dO, dQ) and
// `kv_sized` of its KV heads (K, V, dK, dV): under GQA the latter are smaller.
ComputeWork flash_work(const PassGeometry& g, double flops_ratio, double query_sized, double kv_sized, bool backward) {
  const AttentionBlock whole{g.p.model.seq_len, g.p.model.seq_len, g.local_heads(), g.local_kv_heads(),
                             g.p.model.causal};
  return fused_attention_work(g, whole, flops_ratio, query_sized, kv_sized, backward);
}

ComputeWork score_stream(const PassGeometry& g, ComputeKind kind, double flops, double tensors) {
  return streaming_work(kind, g.p.dtype, score_elements(g), flops, tensors);
}

void unfused_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out) {
  const std::int64_t s = g.p.model.seq_len, d = g.p.model.head_dim(), batch = head_batch(g);
  // Megatron's baddbmm/bmm compute the full square; the causal mask is applied
  // inside the fused softmax, so no FLOPs are skipped.
  out.compute(prefix + "attention.scores", phase, batched_gemm(batch, s, s, d, g.p.dtype));
  out.compute(prefix + "attention.softmax", phase, score_stream(g, ComputeKind::softmax, kSoftmaxForwardFlops, 2.0));
  if (g.p.dropout > 0.0) {
    out.compute(prefix + "attention.dropout", phase,
                score_stream(g, ComputeKind::elementwise, kDropoutFlops, with_mask(2.0, g.p.dtype)));
  }
  out.compute(prefix + "attention.values", phase, batched_gemm(batch, s, d, s, g.p.dtype));
}

void unfused_backward(const PassGeometry& g, const std::string& prefix, OpList& out) {
  const std::int64_t s = g.p.model.seq_len, d = g.p.model.head_dim(), batch = head_batch(g);
  const OpPhase bw = OpPhase::backward;
  out.compute(prefix + "attention.dvalues", bw, batched_gemm(batch, s, d, s, g.p.dtype));  // dV = P^T dO
  out.compute(prefix + "attention.dprobs", bw, batched_gemm(batch, s, s, d, g.p.dtype));   // dP = dO V^T
  if (g.p.dropout > 0.0) {
    out.compute(prefix + "attention.dropout.bwd", bw,
                score_stream(g, ComputeKind::elementwise, 1.0, with_mask(2.0, g.p.dtype)));
  }
  // Reads the saved probabilities and their gradient, writes the scores' gradient.
  out.compute(prefix + "attention.softmax.bwd", bw, score_stream(g, ComputeKind::softmax, kSoftmaxBackwardFlops, 3.0));
  out.compute(prefix + "attention.dquery", bw, batched_gemm(batch, s, d, s, g.p.dtype));  // dQ = dS K
  out.compute(prefix + "attention.dkey", bw, batched_gemm(batch, s, d, s, g.p.dtype));    // dK = dS^T Q
}

}  // namespace

// Transformer Engine's FP8 dot-product attention (`fp8.dot_product_attention`)
// runs the fused kernel, forward and backward, on fp8 operands: cuDNN's fp8
// attention, at its own fitted rate against the fp8 peak.
DType fused_attention_dtype(const PassShape& p) { return p.fp8 && p.fp8->dot_product_attention ? DType::fp8 : p.dtype; }

ComputeWork fused_attention_work(const PassGeometry& g, const AttentionBlock& block, double flops_ratio,
                                 double query_tensors, double kv_tensors, bool backward) {
  const auto& m = g.p.model;
  const double width = static_cast<double>(block.heads * m.head_dim());  // the query heads' width
  const double query_elements = static_cast<double>(g.p.micro_batch * block.queries) * width;
  const double kv_fraction = static_cast<double>(block.kv_heads * m.head_dim()) / width *
                             (static_cast<double>(block.keys) / static_cast<double>(block.queries));
  ComputeWork w = streaming_work(ComputeKind::attention, fused_attention_dtype(g.p), query_elements, 0.0,
                                 query_tensors + kv_tensors * kv_fraction);
  const double mask = block.causal ? kCausalAttentionFraction : 1.0;
  w.flops = flops_ratio * mask * 4.0 * static_cast<double>(g.p.micro_batch) * static_cast<double>(block.queries) *
            static_cast<double>(block.keys) * width;
  w.m = block.queries;
  w.n = block.keys;
  w.k = m.head_dim();
  w.batch = g.p.micro_batch * block.heads;
  w.attention_kernel = fused_kernel(g.p.attention);
  w.backward = backward;
  w.causal = block.causal;
  return w;
}

void append_attention_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out) {
  if (g.context_parallel()) return append_context_attention_forward(g, prefix, phase, out);
  if (is_fused(g.p.attention)) {
    // Reads Q, K, V and writes O; the softmax statistics are negligible.
    out.compute(prefix + "attention", phase, flash_work(g, 1.0, 2.0, 2.0, false));
    return;
  }
  unfused_forward(g, prefix, phase, out);
}

// Selective recompute re-runs the unfused core before its backward, having
// dropped the s^2 tensors; FlashAttention's backward recomputes the scores
// already (counted in kAttentionBackwardFlopsRatio), so it adds nothing there.
void append_attention_backward(const PassGeometry& g, const std::string& prefix, OpList& out) {
  if (g.context_parallel()) return append_context_attention_backward(g, prefix, out);
  if (is_fused(g.p.attention)) {
    // Reads Q, K, V, O, dO and writes dQ, dK, dV.
    out.compute(prefix + "attention.bwd", OpPhase::backward,
                flash_work(g, kAttentionBackwardFlopsRatio, 4.0, 4.0, true));
    return;
  }
  if (g.p.recompute == ActivationRecompute::selective) {
    unfused_forward(g, prefix + "recompute.", OpPhase::backward, out);
  }
  unfused_backward(g, prefix, out);
}

}  // namespace simctl
