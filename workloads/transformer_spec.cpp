#include "workloads/transformer_spec.hpp"

#include "workloads/parameter_layout.hpp"

namespace simctl {

std::int64_t TransformerSpec::norm_parameters() const { return norm == NormKind::layer_norm ? 2 * hidden : hidden; }

std::int64_t TransformerSpec::position_parameters() const {
  if (position != PositionKind::learned) return 0;
  return (position_rows > 0 ? position_rows : seq_len) * hidden;
}

std::int64_t TransformerSpec::embedding_norm_parameters() const {
  return norm_placement == NormPlacement::post ? norm_parameters() : 0;
}

std::int64_t TransformerSpec::embedding_parameters() const {
  return vocab * hidden + position_parameters() + token_type_parameters() + embedding_norm_parameters();
}

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

std::int64_t TransformerSpec::final_norm_parameters() const {
  return norm_placement == NormPlacement::pre ? norm_parameters() : 0;
}

bool TransformerSpec::head_uses_pooler() const {
  return pooler && (head.kind == HeadKind::masked_lm || head.kind == HeadKind::sequence_classification);
}

bool TransformerSpec::head_ties_embedding() const {
  return tied_embeddings && (head.kind == HeadKind::causal_lm || head.kind == HeadKind::masked_lm);
}

std::int64_t TransformerSpec::head_vocab_parameters() const {
  const std::int64_t decoder = tied_embeddings ? 0 : vocab * hidden;
  if (head.kind == HeadKind::causal_lm) return decoder;
  return head.kind == HeadKind::masked_lm ? decoder + vocab : 0;  // the MLM decoder has a bias
}

// Counted from the tensor list, so the count and the layout cannot disagree.
std::int64_t TransformerSpec::head_parameters() const {
  std::int64_t sum = 0;
  for (const auto& t : head_parameter_tensors(*this)) sum += t.elements;
  return sum;
}

std::int64_t TransformerSpec::head_rows_per_sequence() const {
  switch (head.kind) {
    case HeadKind::masked_lm: {
      const auto rows = static_cast<std::int64_t>(static_cast<double>(seq_len) * head.predicted_fraction + 0.5);
      return rows > 0 ? rows : 1;
    }
    case HeadKind::sequence_classification: return 1;
    case HeadKind::question_answering: return 2;  // a start row and an end row, each over the positions
    case HeadKind::causal_lm: break;
  }
  return seq_len;
}

std::int64_t TransformerSpec::head_columns() const {
  switch (head.kind) {
    case HeadKind::sequence_classification: return head.labels;
    case HeadKind::question_answering: return seq_len;
    default: return vocab;
  }
}

std::int64_t TransformerSpec::parameter_count() const {
  return embedding_parameters() + layers * layer_parameters() + final_norm_parameters() + head_parameters();
}

std::int64_t TransformerSpec::active_parameter_count() const {
  if (!moe()) return parameter_count();
  return parameter_count() - layers * (experts - experts_per_token) * expert_parameters();
}

}  // namespace simctl
