#include "workloads/model_flops.hpp"

namespace simctl {

double forward_model_flops_per_sequence(const TransformerSpec& m) {
  const double s = static_cast<double>(m.seq_len);
  const double h = static_cast<double>(m.hidden);
  const double block_gemm_columns = static_cast<double>(m.qkv_width() + m.hidden + m.mlp_matrices() * m.ffn);
  const double block_gemm_flops = 2.0 * s * h * block_gemm_columns;
  const double attention_flops = 4.0 * s * s * h;
  const double lm_head_flops = 2.0 * s * h * static_cast<double>(m.vocab);
  return static_cast<double>(m.layers) * (block_gemm_flops + attention_flops) + lm_head_flops;
}

double training_model_flops(const TransformerSpec& model, double sequences) {
  return 3.0 * forward_model_flops_per_sequence(model) * sequences;
}

}  // namespace simctl
