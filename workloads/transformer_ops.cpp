#include "workloads/transformer_ops.hpp"

#include "workloads/op_costs.hpp"
#include "workloads/parameter_layout.hpp"

namespace simctl {
namespace {

// Per-element FLOP counts of the streaming kernels. They barely matter (these
// kernels are memory-bound) but keep the FLOP totals honest.
constexpr double kNormForwardFlops = 8.0;  // mean, variance, normalise, scale and shift
constexpr double kNormBackwardFlops = 16.0;
constexpr double kGeluForwardFlops = 8.0;  // tanh approximation
constexpr double kGeluBackwardFlops = 16.0;
constexpr double kLossForwardFlops = 5.0;   // max, subtract, exp, sum, log-normalise
constexpr double kLossBackwardFlops = 2.0;  // softmax - one_hot, scaled

double tokens(const PassShape& p) { return static_cast<double>(p.micro_batch * p.model.seq_len); }
std::int64_t token_rows(const PassShape& p) { return p.micro_batch * p.model.seq_len; }
double hidden_elements(const PassShape& p) { return tokens(p) * static_cast<double>(p.model.hidden); }

std::string layer_name(std::int64_t layer, const std::string& what) {
  return "layer" + std::to_string(layer) + "." + what;
}

ModelOp make(std::string name, OpPhase phase, ComputeWork work, std::vector<std::size_t> grads = {}) {
  return ModelOp{std::move(name), phase, work, std::move(grads)};
}

ComputeWork forward_gemm(const PassShape& p, std::int64_t n, std::int64_t k) {
  return gemm_work(token_rows(p), n, k, p.dtype, bytes_per_element(p.dtype));
}

// Forward Y[T,n] = X[T,k] W[k,n]. dgrad: dX[T,k] = dY[T,n] W^T.
ComputeWork dgrad_gemm(const PassShape& p, std::int64_t n, std::int64_t k) {
  return gemm_work(token_rows(p), k, n, p.dtype, bytes_per_element(p.dtype));
}

// wgrad: dW[k,n] = X^T[k,T] dY[T,n], written in the gradient dtype. The bias
// gradient (a column sum of dY) rides in the GEMM epilogue.
ComputeWork wgrad_gemm(const PassShape& p, std::int64_t n, std::int64_t k) {
  return gemm_work(k, n, token_rows(p), p.dtype, bytes_per_element(p.grad_dtype));
}

ComputeWork attention_work(const PassShape& p, double flops_ratio, double tensors_touched) {
  const auto& m = p.model;
  const double s = static_cast<double>(m.seq_len);
  ComputeWork w = streaming_work(ComputeKind::attention, p.dtype, hidden_elements(p), 0.0, tensors_touched);
  w.flops = flops_ratio * kCausalAttentionFraction * 4.0 * static_cast<double>(p.micro_batch) * s * s *
            static_cast<double>(m.hidden);
  w.m = m.seq_len;  // queries
  w.n = m.seq_len;  // keys
  w.k = m.head_dim();
  w.batch = p.micro_batch * m.heads;
  return w;
}

ComputeWork norm(const PassShape& p, double flops, double tensors) {
  return streaming_work(ComputeKind::norm, p.dtype, hidden_elements(p), flops, tensors);
}

ComputeWork residual_add(const PassShape& p) {
  return streaming_work(ComputeKind::elementwise, p.dtype, hidden_elements(p), 1.0, 3.0);
}

double ffn_elements(const PassShape& p) { return tokens(p) * static_cast<double>(p.model.ffn); }

void append_block_forward(const PassShape& p, std::int64_t l, OpPhase phase, const std::string& tag,
                          std::vector<ModelOp>& out) {
  const auto& m = p.model;
  auto name = [&](const char* what) { return layer_name(l, tag + what); };
  out.push_back(make(name("ln1"), phase, norm(p, kNormForwardFlops, 2.0)));
  out.push_back(make(name("qkv"), phase, forward_gemm(p, m.qkv_width(), m.hidden)));
  // Reads Q, K, V and writes O; the softmax statistics are negligible.
  out.push_back(make(name("attention"), phase, attention_work(p, 1.0, 4.0)));
  out.push_back(make(name("attn_out"), phase, forward_gemm(p, m.hidden, m.hidden)));
  out.push_back(make(name("residual1"), phase, residual_add(p)));
  out.push_back(make(name("ln2"), phase, norm(p, kNormForwardFlops, 2.0)));
  out.push_back(make(name("mlp_up"), phase, forward_gemm(p, m.ffn, m.hidden)));
  out.push_back(make(name("gelu"), phase,
                     streaming_work(ComputeKind::elementwise, p.dtype, ffn_elements(p), kGeluForwardFlops, 2.0)));
  out.push_back(make(name("mlp_down"), phase, forward_gemm(p, m.hidden, m.ffn)));
  out.push_back(make(name("residual2"), phase, residual_add(p)));
}

// Backward of one block, mirroring the forward. The gradient of a residual
// add is free for its skip path but must be summed with the branch's input
// gradient once the branch is done, hence one add per residual.
void append_block_backward(const PassShape& p, std::int64_t l, std::vector<ModelOp>& out) {
  const auto& m = p.model;
  const OpPhase bw = OpPhase::backward;
  auto name = [&](const char* what) { return layer_name(l, what); };
  auto grads = [&](BlockTensor w, BlockTensor b) {
    return std::vector<std::size_t>{block_tensor_index(l, w), block_tensor_index(l, b)};
  };
  out.push_back(make(name("mlp_down.dgrad"), bw, dgrad_gemm(p, m.hidden, m.ffn)));
  out.push_back(make(name("mlp_down.wgrad"), bw, wgrad_gemm(p, m.hidden, m.ffn),
                     grads(BlockTensor::mlp_down_weight, BlockTensor::mlp_down_bias)));
  out.push_back(make(name("gelu.bwd"), bw,
                     streaming_work(ComputeKind::elementwise, p.dtype, ffn_elements(p), kGeluBackwardFlops, 3.0)));
  out.push_back(make(name("mlp_up.dgrad"), bw, dgrad_gemm(p, m.ffn, m.hidden)));
  out.push_back(make(name("mlp_up.wgrad"), bw, wgrad_gemm(p, m.ffn, m.hidden),
                     grads(BlockTensor::mlp_up_weight, BlockTensor::mlp_up_bias)));
  out.push_back(make(name("ln2.bwd"), bw, norm(p, kNormBackwardFlops, 3.0),
                     grads(BlockTensor::ln2_weight, BlockTensor::ln2_bias)));
  out.push_back(make(name("residual2.bwd"), bw, residual_add(p)));
  out.push_back(make(name("attn_out.dgrad"), bw, dgrad_gemm(p, m.hidden, m.hidden)));
  out.push_back(make(name("attn_out.wgrad"), bw, wgrad_gemm(p, m.hidden, m.hidden),
                     grads(BlockTensor::attn_out_weight, BlockTensor::attn_out_bias)));
  // Reads Q, K, V, O, dO and writes dQ, dK, dV.
  out.push_back(make(name("attention.bwd"), bw, attention_work(p, kAttentionBackwardFlopsRatio, 8.0)));
  out.push_back(make(name("qkv.dgrad"), bw, dgrad_gemm(p, m.qkv_width(), m.hidden)));
  out.push_back(make(name("qkv.wgrad"), bw, wgrad_gemm(p, m.qkv_width(), m.hidden),
                     grads(BlockTensor::qkv_weight, BlockTensor::qkv_bias)));
  out.push_back(make(name("ln1.bwd"), bw, norm(p, kNormBackwardFlops, 3.0),
                     grads(BlockTensor::ln1_weight, BlockTensor::ln1_bias)));
  out.push_back(make(name("residual1.bwd"), bw, residual_add(p)));
}

double logit_elements(const PassShape& p) { return tokens(p) * static_cast<double>(p.model.vocab); }

void append_head_forward(const PassShape& p, std::vector<ModelOp>& out) {
  const auto& m = p.model;
  out.push_back(make("final_ln", OpPhase::forward, norm(p, kNormForwardFlops, 2.0)));
  out.push_back(make("lm_head", OpPhase::forward, forward_gemm(p, m.vocab, m.hidden)));
  // Fused softmax cross-entropy: reads the logits, keeps the softmax in place.
  out.push_back(make("cross_entropy", OpPhase::forward,
                     streaming_work(ComputeKind::softmax, p.dtype, logit_elements(p), kLossForwardFlops, 2.0)));
}

// The LM head's weight is the token embedding, whose gradient is complete
// only after the embedding backward, so the head's wgrad completes nothing.
void append_head_backward(const PassShape& p, std::vector<ModelOp>& out) {
  const auto& m = p.model;
  const OpPhase bw = OpPhase::backward;
  out.push_back(make("cross_entropy.bwd", bw,
                     streaming_work(ComputeKind::softmax, p.dtype, logit_elements(p), kLossBackwardFlops, 2.0)));
  out.push_back(make("lm_head.dgrad", bw, dgrad_gemm(p, m.vocab, m.hidden)));
  out.push_back(make("lm_head.wgrad", bw, wgrad_gemm(p, m.vocab, m.hidden)));
  out.push_back(make("final_ln.bwd", bw, norm(p, kNormBackwardFlops, 3.0),
                     {final_norm_weight_index(m), final_norm_bias_index(m)}));
}

}  // namespace

std::vector<ModelOp> forward_ops(const PassShape& p) {
  std::vector<ModelOp> out;
  // Gathers token rows, adds position rows, writes the block input.
  out.push_back(make("embedding", OpPhase::forward,
                     streaming_work(ComputeKind::embedding, p.dtype, hidden_elements(p), 1.0, 3.0)));
  for (std::int64_t l = 0; l < p.model.layers; ++l) append_block_forward(p, l, OpPhase::forward, "", out);
  append_head_forward(p, out);
  return out;
}

std::vector<ModelOp> backward_ops(const PassShape& p) {
  std::vector<ModelOp> out;
  append_head_backward(p, out);
  for (std::int64_t l = p.model.layers - 1; l >= 0; --l) {
    // Recomputed forward work is booked as backward time, as profilers show it.
    if (p.recompute) append_block_forward(p, l, OpPhase::backward, "recompute.", out);
    append_block_backward(p, l, out);
  }
  // Scatter-adds dX rows into the token table and sums the position rows.
  out.push_back(make("embedding.bwd", OpPhase::backward,
                     streaming_work(ComputeKind::embedding, p.dtype, hidden_elements(p), 2.0, 3.0),
                     {kTokenEmbeddingTensor, kPositionEmbeddingTensor}));
  return out;
}

}  // namespace simctl
