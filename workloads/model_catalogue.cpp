#include "workloads/model_catalogue.hpp"

#include "sim/config/config_schema.hpp"
#include "sim/config/data_root.hpp"
#include "workloads/bounded_integer.hpp"
#include "workloads/cnn_config.hpp"

namespace simctl {
namespace {

// Far beyond any published model, yet small enough that layers * 12 * hidden^2
// stays well inside int64.
constexpr std::int64_t kMaxLayers = 1024;
constexpr std::int64_t kMaxWidth = 262'144;  // hidden
constexpr std::int64_t kMaxFfn = 1'048'576;
constexpr std::int64_t kMaxTokensDimension = 4'194'304;  // vocab, seq_len
// Keeps layers * experts * 3 * hidden * expert_ffn inside int64.
constexpr std::int64_t kMaxExperts = 1024;

std::int64_t bounded_or(const ConfigNode& node, std::string_view key, std::int64_t max, std::int64_t fallback) {
  if (!node.has(key)) return fallback;
  return bounded_positive_integer(node, key, max);
}

NormKind parse_norm(const ConfigNode& node) {
  if (!node.has("norm")) return NormKind::layer_norm;
  return node.choice("norm", {"layernorm", "rmsnorm"}) == "rmsnorm" ? NormKind::rms_norm : NormKind::layer_norm;
}

PositionKind parse_position(const ConfigNode& node) {
  if (!node.has("position")) return PositionKind::learned;
  return node.choice("position", {"learned", "rope"}) == "rope" ? PositionKind::rope : PositionKind::learned;
}

// An encoder's layout: attention both ways, post-LN, token types, a pooler.
void parse_encoder_layout(const ConfigNode& node, TransformerSpec& spec) {
  if (node.has("attention_mask")) {
    spec.causal = node.choice("attention_mask", {"causal", "bidirectional"}) == "causal";
  }
  if (node.has("norm_placement")) {
    spec.norm_placement =
        node.choice("norm_placement", {"pre", "post"}) == "post" ? NormPlacement::post : NormPlacement::pre;
  }
  if (node.has("token_types")) spec.token_types = bounded_positive_integer(node, "token_types", kMaxTokensDimension);
  spec.pooler = node.bool_or("pooler", false);
  // The head's default follows the mask; workload.head may choose another.
  if (!spec.causal) spec.head.kind = HeadKind::masked_lm;
}

void check_divisibility(const ConfigNode& node, const TransformerSpec& spec) {
  if (spec.hidden % spec.heads != 0) {
    node.child("heads").fail("hidden (" + std::to_string(spec.hidden) + ") must be divisible by heads (" +
                             std::to_string(spec.heads) + ")");
  }
  // Grouped-query attention: each KV head serves heads / kv_heads query heads.
  if (spec.kv_heads > spec.heads || spec.heads % spec.kv_heads != 0) {
    node.child("kv_heads")
        .fail("kv_heads (" + std::to_string(spec.kv_heads) + ") must divide heads (" + std::to_string(spec.heads) +
              ")");
  }
}

// experts: 0 or 1 is a dense MLP; more makes every block a mixture of
// experts, which needs experts_per_token (top-k) and may set expert_ffn.
void parse_experts(const ConfigNode& node, TransformerSpec& spec) {
  if (node.has("experts")) {
    spec.experts = node.integer_or("experts", 0);
    if (spec.experts < 0 || spec.experts > kMaxExperts) {
      node.child("experts").fail("must be 0 or 1 (a dense MLP) or a number of experts from 2 to " +
                                 std::to_string(kMaxExperts) + ", got " + std::to_string(spec.experts));
    }
  }
  for (const char* key : {"experts_per_token", "expert_ffn"}) {
    if (!spec.moe() && node.has(key)) {
      node.child(key).fail(std::string(key) + " applies to a mixture-of-experts model; set experts (> 1) too");
    }
  }
  if (!spec.moe()) return;
  if (!node.has("experts_per_token")) {
    node.child("experts").fail("a mixture of experts needs experts_per_token (how many of the " +
                               std::to_string(spec.experts) + " experts each token is routed to; Mixtral: 2)");
  }
  spec.experts_per_token = node.positive_integer("experts_per_token");
  if (spec.experts_per_token > spec.experts) {
    node.child("experts_per_token")
        .fail("must be from 1 to experts (" + std::to_string(spec.experts) + "), got " +
              std::to_string(spec.experts_per_token));
  }
  spec.expert_ffn = bounded_or(node, "expert_ffn", kMaxFfn, 0);
}

}  // namespace

TransformerSpec parse_transformer_spec(const ConfigNode& node, const std::string& name) {
  expect_section(node, "workload.model");
  TransformerSpec spec;
  spec.name = name;
  spec.source = node.string_or("source", "");
  spec.layers = bounded_positive_integer(node, "layers", kMaxLayers);
  spec.hidden = bounded_positive_integer(node, "hidden", kMaxWidth);
  spec.heads = bounded_positive_integer(node, "heads", kMaxWidth);
  spec.kv_heads = bounded_or(node, "kv_heads", kMaxWidth, spec.heads);
  spec.ffn = bounded_or(node, "ffn", kMaxFfn, 4 * spec.hidden);
  spec.vocab = bounded_positive_integer(node, "vocab", kMaxTokensDimension);
  spec.seq_len = bounded_positive_integer(node, "seq_len", kMaxTokensDimension);
  spec.gated_mlp = node.bool_or("gated_mlp", false);
  spec.norm = parse_norm(node);
  spec.position = parse_position(node);
  spec.linear_bias = node.bool_or("bias", true);
  spec.tied_embeddings = node.bool_or("tied_embeddings", true);
  parse_encoder_layout(node, spec);
  parse_experts(node, spec);
  check_divisibility(node, spec);
  return spec;
}

ModelCatalogue ModelCatalogue::load(const ConfigNode& root) {
  expect_section(root, "model_catalogue_file");
  ModelCatalogue catalogue;
  for (const auto& [id, entry] : root.child("models").entries()) {
    if (is_cnn_node(entry)) {
      catalogue.cnns_.push_back(parse_cnn_spec(entry, id));
    } else if (is_lstm_node(entry)) {
      catalogue.lstms_.push_back(parse_lstm_spec(entry, id));
    } else if (is_mlp_node(entry)) {
      catalogue.mlps_.push_back(parse_mlp_spec(entry, id));
    } else {
      catalogue.models_.push_back(parse_transformer_spec(entry, id));
    }
  }
  return catalogue;
}

ModelCatalogue ModelCatalogue::load_file(const std::string& path) { return load(ConfigNode::load_file(path)); }

std::string ModelCatalogue::default_path() { return data_root() + "/workloads/models.yaml"; }

const TransformerSpec* ModelCatalogue::find(const std::string& id) const {
  for (const auto& m : models_) {
    if (m.name == id) return &m;
  }
  return nullptr;
}

const MlpSpec* ModelCatalogue::find_mlp(const std::string& id) const {
  for (const auto& m : mlps_) {
    if (m.name == id) return &m;
  }
  return nullptr;
}

const CnnSpec* ModelCatalogue::find_cnn(const std::string& id) const {
  for (const auto& m : cnns_) {
    if (m.name == id) return &m;
  }
  return nullptr;
}

const LstmSpec* ModelCatalogue::find_lstm(const std::string& id) const {
  for (const auto& m : lstms_) {
    if (m.name == id) return &m;
  }
  return nullptr;
}

std::vector<std::string> ModelCatalogue::ids() const {
  std::vector<std::string> out;
  for (const auto& m : models_) out.push_back(m.name);
  for (const auto& m : mlps_) out.push_back(m.name);
  for (const auto& m : cnns_) out.push_back(m.name);
  for (const auto& m : lstms_) out.push_back(m.name);
  return out;
}

}  // namespace simctl
