#include "workloads/transformer_spec.hpp"

namespace simctl {

std::int64_t TransformerSpec::norm_parameters() const { return norm == NormKind::layer_norm ? 2 * hidden : hidden; }

std::int64_t TransformerSpec::position_parameters() const {
  return position == PositionKind::learned ? seq_len * hidden : 0;
}

std::int64_t TransformerSpec::embedding_parameters() const { return vocab * hidden + position_parameters(); }

namespace {

// An MLP of inner width `ffn`: up (and gate) then down projections.
std::int64_t mlp_parameters(const TransformerSpec& m, std::int64_t width) {
  const std::int64_t bias = m.linear_bias ? 1 : 0;
  const std::int64_t up_width = m.gated_mlp ? 2 * width : width;
  const std::int64_t up = m.hidden * up_width + bias * up_width;  // gate and up when gated
  const std::int64_t down = width * m.hidden + bias * m.hidden;
  return up + down;
}

}  // namespace

std::int64_t TransformerSpec::dense_mlp_parameters() const { return mlp_parameters(*this, ffn); }

// Mixtral's router (block_sparse_moe.gate) is a Linear(hidden, experts,
// bias=False).
std::int64_t TransformerSpec::router_parameters() const { return moe() ? hidden * experts : 0; }

std::int64_t TransformerSpec::expert_parameters() const { return moe() ? mlp_parameters(*this, expert_width()) : 0; }

std::int64_t TransformerSpec::layer_dense_parameters() const {
  const std::int64_t bias = linear_bias ? 1 : 0;
  const std::int64_t norms = 2 * norm_parameters();
  const std::int64_t qkv = hidden * qkv_width() + bias * qkv_width();
  const std::int64_t attention_out = hidden * hidden + bias * hidden;
  const std::int64_t mlp = moe() ? router_parameters() : dense_mlp_parameters();
  return norms + qkv + attention_out + mlp;
}

std::int64_t TransformerSpec::layer_parameters() const {
  return layer_dense_parameters() + experts_in_block() * expert_parameters();
}

std::int64_t TransformerSpec::final_norm_parameters() const { return norm_parameters(); }

std::int64_t TransformerSpec::lm_head_parameters() const { return tied_embeddings ? 0 : vocab * hidden; }

std::int64_t TransformerSpec::parameter_count() const {
  return embedding_parameters() + layers * layer_parameters() + final_norm_parameters() + lm_head_parameters();
}

std::int64_t TransformerSpec::active_parameter_count() const {
  if (!moe()) return parameter_count();
  return parameter_count() - layers * (experts - experts_per_token) * expert_parameters();
}

}  // namespace simctl
