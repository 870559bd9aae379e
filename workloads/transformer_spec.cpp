#include "workloads/transformer_spec.hpp"

namespace simctl {

std::int64_t TransformerSpec::norm_parameters() const { return norm == NormKind::layer_norm ? 2 * hidden : hidden; }

std::int64_t TransformerSpec::position_parameters() const {
  return position == PositionKind::learned ? seq_len * hidden : 0;
}

std::int64_t TransformerSpec::embedding_parameters() const { return vocab * hidden + position_parameters(); }

std::int64_t TransformerSpec::layer_parameters() const {
  const std::int64_t bias = linear_bias ? 1 : 0;
  const std::int64_t norms = 2 * norm_parameters();
  const std::int64_t qkv = hidden * qkv_width() + bias * qkv_width();
  const std::int64_t attention_out = hidden * hidden + bias * hidden;
  const std::int64_t mlp_up = hidden * mlp_up_width() + bias * mlp_up_width();  // gate and up when gated
  const std::int64_t mlp_down = ffn * hidden + bias * hidden;
  return norms + qkv + attention_out + mlp_up + mlp_down;
}

std::int64_t TransformerSpec::final_norm_parameters() const { return norm_parameters(); }

std::int64_t TransformerSpec::lm_head_parameters() const { return tied_embeddings ? 0 : vocab * hidden; }

std::int64_t TransformerSpec::parameter_count() const {
  return embedding_parameters() + layers * layer_parameters() + final_norm_parameters() + lm_head_parameters();
}

}  // namespace simctl
