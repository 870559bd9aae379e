#include "workloads/transformer_spec.hpp"

namespace simctl {

std::int64_t TransformerSpec::embedding_parameters() const { return vocab * hidden + seq_len * hidden; }

std::int64_t TransformerSpec::layer_parameters() const {
  const std::int64_t layer_norms = 2 * (2 * hidden);  // two LayerNorms, weight + bias each
  const std::int64_t qkv = hidden * qkv_width() + qkv_width();
  const std::int64_t attention_out = hidden * hidden + hidden;
  const std::int64_t mlp_up = hidden * ffn + ffn;
  const std::int64_t mlp_down = ffn * hidden + hidden;
  return layer_norms + qkv + attention_out + mlp_up + mlp_down;
}

std::int64_t TransformerSpec::final_norm_parameters() const { return 2 * hidden; }

std::int64_t TransformerSpec::parameter_count() const {
  return embedding_parameters() + layers * layer_parameters() + final_norm_parameters();
}

}  // namespace simctl
