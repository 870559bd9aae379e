#include "workloads/parameter_layout.hpp"

#include <stdexcept>

namespace simctl {
namespace {

constexpr std::size_t kBlockTensorKinds = static_cast<std::size_t>(BlockTensor::count);

bool is_norm_bias(BlockTensor t) { return t == BlockTensor::ln1_bias || t == BlockTensor::ln2_bias; }

bool is_projection_bias(BlockTensor t) {
  return t == BlockTensor::qkv_bias || t == BlockTensor::attn_out_bias || t == BlockTensor::mlp_gate_bias ||
         t == BlockTensor::mlp_up_bias || t == BlockTensor::mlp_down_bias || t == BlockTensor::experts_fc1_bias ||
         t == BlockTensor::experts_fc2_bias;
}

bool is_dense_mlp(BlockTensor t) {
  return t == BlockTensor::mlp_gate_weight || t == BlockTensor::mlp_gate_bias || t == BlockTensor::mlp_up_weight ||
         t == BlockTensor::mlp_up_bias || t == BlockTensor::mlp_down_weight || t == BlockTensor::mlp_down_bias;
}

bool is_gate(BlockTensor t) { return t == BlockTensor::mlp_gate_weight || t == BlockTensor::mlp_gate_bias; }

std::int64_t block_tensor_elements(const TransformerSpec& s, BlockTensor t) {
  switch (t) {
    case BlockTensor::ln1_weight:
    case BlockTensor::ln1_bias:
    case BlockTensor::ln2_weight:
    case BlockTensor::ln2_bias:
    case BlockTensor::attn_out_bias:
    case BlockTensor::mlp_down_bias: return s.hidden;
    case BlockTensor::qkv_weight: return s.hidden * s.qkv_width();
    case BlockTensor::qkv_bias: return s.qkv_width();
    case BlockTensor::attn_out_weight: return s.hidden * s.hidden;
    case BlockTensor::mlp_gate_weight:
    case BlockTensor::mlp_up_weight:
    case BlockTensor::mlp_down_weight: return s.hidden * s.ffn;
    case BlockTensor::mlp_gate_bias:
    case BlockTensor::mlp_up_bias: return s.ffn;
    case BlockTensor::router_weight: return s.router_parameters();
    case BlockTensor::experts_fc1_weight: return s.experts * s.hidden * s.expert_up_width();
    case BlockTensor::experts_fc1_bias: return s.experts * s.expert_up_width();
    case BlockTensor::experts_fc2_weight: return s.experts * s.expert_width() * s.hidden;
    case BlockTensor::experts_fc2_bias: return s.experts * s.hidden;
    case BlockTensor::count: break;
  }
  return 0;
}

const char* block_tensor_name(BlockTensor t) {
  switch (t) {
    case BlockTensor::ln1_weight: return "ln_1.weight";
    case BlockTensor::ln1_bias: return "ln_1.bias";
    case BlockTensor::qkv_weight: return "attn.c_attn.weight";
    case BlockTensor::qkv_bias: return "attn.c_attn.bias";
    case BlockTensor::attn_out_weight: return "attn.c_proj.weight";
    case BlockTensor::attn_out_bias: return "attn.c_proj.bias";
    case BlockTensor::ln2_weight: return "ln_2.weight";
    case BlockTensor::ln2_bias: return "ln_2.bias";
    case BlockTensor::router_weight: return "moe.router.weight";
    case BlockTensor::experts_fc1_weight: return "moe.experts.weight1";
    case BlockTensor::experts_fc1_bias: return "moe.experts.bias1";
    case BlockTensor::experts_fc2_weight: return "moe.experts.weight2";
    case BlockTensor::experts_fc2_bias: return "moe.experts.bias2";
    case BlockTensor::mlp_gate_weight: return "mlp.gate_proj.weight";
    case BlockTensor::mlp_gate_bias: return "mlp.gate_proj.bias";
    case BlockTensor::mlp_up_weight: return "mlp.c_fc.weight";
    case BlockTensor::mlp_up_bias: return "mlp.c_fc.bias";
    case BlockTensor::mlp_down_weight: return "mlp.c_proj.weight";
    case BlockTensor::mlp_down_bias: return "mlp.c_proj.bias";
    case BlockTensor::count: break;
  }
  return "?";
}

std::vector<BlockTensor> block_tensors(const TransformerSpec& spec) {
  std::vector<BlockTensor> out;
  for (std::size_t t = 0; t < kBlockTensorKinds; ++t) {
    const auto which = static_cast<BlockTensor>(t);
    if (has_block_tensor(spec, which)) out.push_back(which);
  }
  return out;
}

std::size_t norm_tensors(const TransformerSpec& spec) { return spec.norm == NormKind::layer_norm ? 2 : 1; }

std::size_t table_tensors(const TransformerSpec& spec) {
  return 1 + (spec.position == PositionKind::learned ? 1 : 0) + (spec.token_types > 0 ? 1 : 0);
}

std::size_t leading_tensors(const TransformerSpec& spec) {
  return table_tensors(spec) + (spec.norm_placement == NormPlacement::post ? norm_tensors(spec) : 0);
}

std::vector<std::size_t> index_range(std::size_t first, std::size_t count) {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < count; ++i) out.push_back(first + i);
  return out;
}

void push_norm(std::vector<ParameterTensor>& out, const TransformerSpec& spec, const std::string& name) {
  out.push_back({name + ".weight", spec.hidden});
  if (spec.norm == NormKind::layer_norm) out.push_back({name + ".bias", spec.hidden});
}

void push_linear(std::vector<ParameterTensor>& out, const std::string& name, std::int64_t in, std::int64_t outputs) {
  out.push_back({name + ".weight", in * outputs});
  out.push_back({name + ".bias", outputs});
}

}  // namespace

// HF transformers' names: BertForPreTraining's cls.*, BertPooler, the
// classifier of BertForSequenceClassification, qa_outputs of
// BertForQuestionAnswering.
std::vector<ParameterTensor> head_parameter_tensors(const TransformerSpec& spec) {
  std::vector<ParameterTensor> out;
  const std::int64_t h = spec.hidden;
  if (spec.head_uses_pooler()) push_linear(out, "pooler.dense", h, h);
  switch (spec.head.kind) {
    case HeadKind::causal_lm:
      if (!spec.tied_embeddings) out.push_back({"lm_head.weight", spec.vocab * h});
      break;
    case HeadKind::masked_lm:
      push_linear(out, "cls.predictions.transform.dense", h, h);
      push_norm(out, spec, "cls.predictions.transform.LayerNorm");
      if (!spec.tied_embeddings) out.push_back({"cls.predictions.decoder.weight", spec.vocab * h});
      out.push_back({"cls.predictions.bias", spec.vocab});
      if (spec.head_uses_pooler()) push_linear(out, "cls.seq_relationship", h, 2);
      break;
    case HeadKind::sequence_classification:
      if (!spec.head_uses_pooler()) push_linear(out, "classifier.dense", h, h);  // RoBERTa's head
      push_linear(out, "classifier", h, spec.head.labels);
      break;
    case HeadKind::question_answering: push_linear(out, "qa_outputs", h, 2); break;
  }
  return out;
}

namespace {

std::size_t first_after_blocks(const TransformerSpec& spec) {
  return leading_tensors(spec) + static_cast<std::size_t>(spec.layers) * block_tensors(spec).size();
}

[[noreturn]] void missing(const std::string& what) {
  throw std::logic_error("the model has no " + what + " parameter tensor");
}

}  // namespace

bool has_block_tensor(const TransformerSpec& spec, BlockTensor t) {
  if (t == BlockTensor::count) return false;
  if (is_norm_bias(t) && spec.norm != NormKind::layer_norm) return false;
  if (is_projection_bias(t) && !spec.linear_bias) return false;
  if (is_dense_mlp(t) && spec.moe()) return false;
  if ((is_expert_tensor(t) || t == BlockTensor::router_weight) && !spec.moe()) return false;
  return !is_gate(t) || spec.gated_mlp;
}

bool is_expert_tensor(BlockTensor t) {
  return t == BlockTensor::experts_fc1_weight || t == BlockTensor::experts_fc1_bias ||
         t == BlockTensor::experts_fc2_weight || t == BlockTensor::experts_fc2_bias;
}

std::size_t block_tensor_index(const TransformerSpec& spec, std::int64_t layer, BlockTensor t) {
  const auto present = block_tensors(spec);
  for (std::size_t i = 0; i < present.size(); ++i) {
    if (present[i] == t) return leading_tensors(spec) + static_cast<std::size_t>(layer) * present.size() + i;
  }
  missing(block_tensor_name(t));
}

std::vector<std::size_t> block_tensor_indices(const TransformerSpec& spec, std::int64_t layer,
                                              std::initializer_list<BlockTensor> wanted) {
  std::vector<std::size_t> out;
  for (BlockTensor t : wanted) {
    if (has_block_tensor(spec, t)) out.push_back(block_tensor_index(spec, layer, t));
  }
  return out;
}

std::size_t position_embedding_index(const TransformerSpec& spec) {
  if (spec.position != PositionKind::learned) missing("position embedding");
  return 1;
}

std::vector<std::size_t> embedding_tensor_indices(const TransformerSpec& spec) {
  return index_range(kTokenEmbeddingTensor, table_tensors(spec));
}

std::vector<std::size_t> embedding_norm_indices(const TransformerSpec& spec) {
  if (spec.norm_placement != NormPlacement::post) return {};
  return index_range(table_tensors(spec), norm_tensors(spec));
}

// The final norm sits where a block after the last one would start.
std::vector<std::size_t> final_norm_indices(const TransformerSpec& spec) {
  if (spec.norm_placement != NormPlacement::pre) return {};
  return index_range(first_after_blocks(spec), norm_tensors(spec));
}

std::size_t lm_head_index(const TransformerSpec& spec) {
  if (spec.tied_embeddings || spec.head.kind != HeadKind::causal_lm) missing("separate LM head");
  return first_after_blocks(spec) + final_norm_indices(spec).size();
}

std::vector<std::size_t> head_tensor_indices(const TransformerSpec& spec) {
  return index_range(first_after_blocks(spec) + final_norm_indices(spec).size(), head_parameter_tensors(spec).size());
}

std::vector<ParameterTensor> parameter_tensors(const TransformerSpec& spec) {
  std::vector<ParameterTensor> out;
  out.push_back({"wte.weight", spec.vocab * spec.hidden});
  if (spec.position == PositionKind::learned) out.push_back({"wpe.weight", spec.position_parameters()});
  if (spec.token_types > 0) out.push_back({"wtt.weight", spec.token_type_parameters()});
  if (spec.norm_placement == NormPlacement::post) push_norm(out, spec, "emb_ln");
  const auto present = block_tensors(spec);
  for (std::int64_t layer = 0; layer < spec.layers; ++layer) {
    for (BlockTensor t : present) {
      out.push_back({"h." + std::to_string(layer) + "." + block_tensor_name(t), block_tensor_elements(spec, t)});
    }
  }
  if (spec.norm_placement == NormPlacement::pre) push_norm(out, spec, "ln_f");
  for (auto& t : head_parameter_tensors(spec)) out.push_back(std::move(t));
  return out;
}

}  // namespace simctl
