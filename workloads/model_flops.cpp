#include "workloads/model_flops.hpp"

namespace simctl {

// The head's GEMMs: logits (rows x columns, from hidden: the LM head's s x V,
// SQuAD's 2 x s), plus the MLM transform and the pooler where the head has
// them.
double head_flops_per_sequence(const TransformerSpec& m) {
  const double h = static_cast<double>(m.hidden);
  const double rows = static_cast<double>(m.head_rows_per_sequence());
  double flops = 2.0 * h * rows * static_cast<double>(m.head_columns());
  if (m.head.kind == HeadKind::masked_lm) flops += 2.0 * rows * h * h;
  if (m.head_uses_pooler() || m.head.kind == HeadKind::sequence_classification) flops += 2.0 * h * h;
  return flops;
}

double forward_model_flops_per_sequence(const TransformerSpec& m) {
  const double s = static_cast<double>(m.seq_len);
  const double h = static_cast<double>(m.hidden);
  // A mixture of experts runs each token through its router and its top_k
  // experts only.
  const double mlp_columns =
      m.moe() ? static_cast<double>(m.experts + m.experts_per_token * m.mlp_matrices() * m.expert_width())
              : static_cast<double>(m.mlp_matrices() * m.ffn);
  const double block_gemm_columns = static_cast<double>(m.qkv_width() + m.hidden) + mlp_columns;
  const double block_gemm_flops = 2.0 * s * h * block_gemm_columns;
  const double attention_flops = 4.0 * s * s * h;
  return static_cast<double>(m.layers) * (block_gemm_flops + attention_flops) + head_flops_per_sequence(m);
}

double training_model_flops(const TransformerSpec& model, double sequences) {
  return 3.0 * forward_model_flops_per_sequence(model) * sequences;
}

double finetune_model_flops(const TransformerSpec& m, const Finetune& tune, double sequences) {
  const double s = static_cast<double>(m.seq_len);
  const double block_gemm = 2.0 * s * static_cast<double>(m.linear_parameters());
  const double attention = 4.0 * s * s * static_cast<double>(m.hidden);
  const double lm_head = head_flops_per_sequence(m);
  const auto frozen = static_cast<double>(tune.frozen_layers);
  const double trained = static_cast<double>(m.layers) - frozen;
  double per_sequence = 3.0 * forward_model_flops_per_sequence(m) - 2.0 * frozen * (block_gemm + attention);
  if (tune.adapters()) {
    per_sequence -= trained * block_gemm + lm_head;  // no wgrad of the frozen base
    per_sequence += 6.0 * s * trained * adapter_parameters(m, tune, 1);
  }
  return per_sequence * sequences;
}

}  // namespace simctl
