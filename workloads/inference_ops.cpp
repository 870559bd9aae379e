#include "workloads/inference_ops.hpp"

#include "workloads/pass_geometry.hpp"

namespace simctl {
namespace {

// Per-element FLOPs of the streaming kernels (as transformer_ops.cpp counts
// them; they barely matter, these kernels are memory-bound).
constexpr double kLayerNormFlops = 8.0;
constexpr double kRmsNormFlops = 5.0;
constexpr double kRopeFlops = 3.0;
constexpr double kSamplingFlops = 5.0;  // softmax over the vocabulary, then the pick

// The training pass shape with this pass's sizes, for the helpers that take
// one (the MLP activation).
PassShape pass_shape(const InferencePass& p) {
  PassShape shape;
  shape.model = p.model;
  shape.micro_batch = p.batch;
  shape.dtype = p.dtype == DType::fp8 ? DType::bf16 : p.dtype;
  shape.tensor = p.tensor;
  return shape;
}

struct InferenceSizes {
  explicit InferenceSizes(const InferencePass& pass) : p(pass) {}
  const InferencePass& p;
  double rows() const { return static_cast<double>(p.token_rows()); }
  std::int64_t local_heads() const { return p.model.heads / p.tensor; }
  std::int64_t local_kv_heads() const { return p.model.kv_heads / p.tensor; }
  std::int64_t local_hidden() const { return p.model.hidden / p.tensor; }
  std::int64_t local_kv_width() const { return p.model.kv_width() / p.tensor; }
  std::int64_t local_ffn() const { return p.model.ffn / p.tensor; }
  std::int64_t local_vocab() const { return (p.model.vocab + p.tensor - 1) / p.tensor; }
  // FP8 serving (TensorRT-LLM's FP8 engines) runs the linear layers' GEMMs
  // on fp8 operands; activations, norms and attention stay 16-bit.
  DType act() const { return p.dtype == DType::fp8 ? DType::bf16 : p.dtype; }
  double activation_bytes() const { return rows() * static_cast<double>(p.model.hidden) * bytes_per_element(act()); }
};

ComputeWork linear(const InferenceSizes& s, std::int64_t n, std::int64_t k) {
  return gemm_work(s.p.token_rows(), n, k, s.p.dtype, bytes_per_element(s.act()));
}

ComputeWork norm(const InferenceSizes& s, double rows) {
  const double flops = s.p.model.norm == NormKind::layer_norm ? kLayerNormFlops : kRmsNormFlops;
  return streaming_work(ComputeKind::norm, s.act(), rows * static_cast<double>(s.p.model.hidden), flops, 2.0);
}

ComputeWork residual(const InferenceSizes& s) {
  return streaming_work(ComputeKind::elementwise, s.act(), s.rows() * static_cast<double>(s.p.model.hidden), 1.0, 3.0);
}

// The new tokens' K and V, read from the QKV output and written into the
// cache in its dtype.
ComputeWork cache_write(const InferenceSizes& s) {
  const double values = s.rows() * 2.0 * static_cast<double>(s.local_kv_width());
  ComputeWork w = streaming_work(ComputeKind::elementwise, s.p.kv_dtype, values, 0.0, 1.0);
  w.memory_bytes += values * bytes_per_element(s.act());
  return w;
}

// Prefill: FlashAttention over each prompt, causal (half the 4*b*s^2*h
// FLOPs), reading Q, K, V and writing O once.
ComputeWork prefill_attention(const InferenceSizes& s) {
  const double b = static_cast<double>(s.p.batch), len = static_cast<double>(s.p.prompt);
  const double q_values = b * len * static_cast<double>(s.local_hidden());
  const double kv_values = b * len * 2.0 * static_cast<double>(s.local_kv_width());
  ComputeWork w;
  w.kind = ComputeKind::attention;
  w.dtype = s.act();
  w.flops = kCausalAttentionFraction * 4.0 * b * len * len * static_cast<double>(s.local_hidden());
  w.memory_bytes = (2.0 * q_values + kv_values) * bytes_per_element(s.act());
  w.m = s.p.prompt;
  w.n = s.p.prompt;
  w.k = s.p.model.head_dim();
  w.batch = s.p.batch * s.local_heads();
  w.causal = true;
  return w;
}

// Decode: each sequence's new query heads attend over its cached tokens plus
// the new one. The heads sharing a KV head read its K and V once (as
// FlashAttention's and TensorRT-LLM's GQA decode kernels do), so the bytes
// are the cache; 4 FLOPs per cached position per query head dimension.
ComputeWork decode_attention(const InferenceSizes& s) {
  const double b = static_cast<double>(s.p.batch), len = static_cast<double>(s.p.cached + 1);
  ComputeWork w;
  w.kind = ComputeKind::attention;
  w.dtype = s.act();
  w.flops = 4.0 * b * len * static_cast<double>(s.local_hidden());
  w.memory_bytes = b * len * 2.0 * static_cast<double>(s.local_kv_width()) * bytes_per_element(s.p.kv_dtype) +
                   2.0 * b * static_cast<double>(s.local_hidden()) * bytes_per_element(s.act());
  w.m = s.p.model.heads / s.p.model.kv_heads;  // queries per KV head
  w.n = s.p.cached + 1;
  w.k = s.p.model.head_dim();
  w.batch = s.p.batch * s.local_kv_heads();
  return w;
}

void all_reduce(const InferenceSizes& s, const std::string& name, OpList& out) {
  if (s.p.tensor > 1) out.comm(name, OpPhase::forward, CollectiveOp::all_reduce, s.activation_bytes());
}

void append_layer(const InferenceSizes& s, const PassGeometry& g, std::int64_t layer, OpList& out) {
  const TransformerSpec& m = s.p.model;
  const std::string at = "layer" + std::to_string(layer) + ".";
  const OpPhase f = OpPhase::forward;
  out.compute(at + "ln1", f, norm(s, s.rows()));
  out.compute(at + "qkv", f, linear(s, m.qkv_width() / s.p.tensor, m.hidden));
  if (m.position == PositionKind::rope) {
    const double values = s.rows() * static_cast<double>(s.local_hidden() + s.local_kv_width());
    out.compute(at + "rope", f, streaming_work(ComputeKind::elementwise, s.act(), values, kRopeFlops, 2.0));
  }
  out.compute(at + "kv_cache_write", f, cache_write(s));
  const bool prefill = s.p.phase == InferencePhase::prefill;
  out.compute(at + "attention", f, prefill ? prefill_attention(s) : decode_attention(s));
  out.compute(at + "attn_out", f, linear(s, m.hidden, s.local_hidden()));
  all_reduce(s, at + "attn.all_reduce", out);
  out.compute(at + "residual1", f, residual(s));
  out.compute(at + "ln2", f, norm(s, s.rows()));
  out.compute(at + "mlp_up", f, linear(s, m.mlp_up_width() / s.p.tensor, m.hidden));
  out.compute(at + activation_name(m), f, mlp_activation_forward(g, s.rows() * static_cast<double>(s.local_ffn())));
  out.compute(at + "mlp_down", f, linear(s, m.hidden, s.local_ffn()));
  all_reduce(s, at + "mlp.all_reduce", out);
  out.compute(at + "residual2", f, residual(s));
}

// The last token of each sequence through the final norm and the LM head
// (a vocab/t column shard per rank, 16-bit even in FP8 engines), the shards'
// logits gathered, and the next token sampled from them.
void append_head(const InferenceSizes& s, OpList& out) {
  const InferencePass& p = s.p;
  const double b = static_cast<double>(p.batch);
  out.compute("final_norm", OpPhase::forward, norm(s, b));
  out.compute("lm_head", OpPhase::forward,
              gemm_work(p.batch, s.local_vocab(), p.model.hidden, s.act(), bytes_per_element(s.act())));
  const double logits = b * static_cast<double>(p.model.vocab);
  if (p.tensor > 1) {
    out.comm("logits.all_gather", OpPhase::forward, CollectiveOp::all_gather, logits * bytes_per_element(s.act()));
  }
  out.compute("sampling", OpPhase::forward, streaming_work(ComputeKind::softmax, s.act(), logits, kSamplingFlops, 1.0));
}

}  // namespace

double kv_bytes_per_token_layer(const TransformerSpec& m, std::int64_t tensor, DType kv_dtype) {
  return 2.0 * static_cast<double>(m.kv_width() / tensor) * bytes_per_element(kv_dtype);
}

std::vector<ModelOp> inference_ops(const InferencePass& pass) {
  std::vector<ModelOp> ops;
  OpList out(ops);
  const InferenceSizes s(pass);
  const PassShape shape = pass_shape(pass);
  const PassGeometry g(shape);
  if (pass.embedding) {
    const double values = s.rows() * static_cast<double>(pass.model.hidden);
    out.compute("embedding", OpPhase::forward, streaming_work(ComputeKind::embedding, s.act(), values, 0.0, 2.0));
    // Vocab-parallel embedding: each rank looks up the tokens its shard
    // holds, zeros elsewhere, and the shards are summed (vLLM, Megatron).
    all_reduce(s, "embedding.all_reduce", out);
  }
  for (std::int64_t l = pass.first_layer; l < pass.end_layer; ++l) append_layer(s, g, l, out);
  if (pass.head) append_head(s, out);
  return ops;
}

}  // namespace simctl
