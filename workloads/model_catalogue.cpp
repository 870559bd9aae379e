#include "workloads/model_catalogue.hpp"

#include "sim/config/data_root.hpp"

namespace simctl {
namespace {

std::int64_t positive_or(const ConfigNode& node, std::string_view key, std::int64_t fallback) {
  if (!node.has(key)) return fallback;
  return node.positive_integer(key);
}

// The variants below change shapes and parameter counts in ways the op
// builder does not model yet; refusing them beats silently pricing a GPT.
void refuse_unsupported_variants(const ConfigNode& node, const TransformerSpec& spec) {
  if (spec.kv_heads != spec.heads) {
    node.child("kv_heads")
        .fail("grouped-query attention (kv_heads != heads) is not supported yet; use " + std::to_string(spec.heads) +
              " or leave it out");
  }
  if (spec.gated_mlp) node.child("gated_mlp").fail("gated (SwiGLU) MLP is not supported yet; use false");
}

void check_divisibility(const ConfigNode& node, const TransformerSpec& spec) {
  if (spec.hidden % spec.heads != 0) {
    node.child("heads").fail("hidden (" + std::to_string(spec.hidden) + ") must be divisible by heads (" +
                             std::to_string(spec.heads) + ")");
  }
}

}  // namespace

TransformerSpec parse_transformer_spec(const ConfigNode& node, const std::string& name) {
  node.expect_keys({"source", "layers", "hidden", "heads", "kv_heads", "ffn", "vocab", "seq_len", "gated_mlp"});
  TransformerSpec spec;
  spec.name = name;
  spec.source = node.string_or("source", "");
  spec.layers = node.positive_integer("layers");
  spec.hidden = node.positive_integer("hidden");
  spec.heads = node.positive_integer("heads");
  spec.kv_heads = positive_or(node, "kv_heads", spec.heads);
  spec.ffn = positive_or(node, "ffn", 4 * spec.hidden);
  spec.vocab = node.positive_integer("vocab");
  spec.seq_len = node.positive_integer("seq_len");
  spec.gated_mlp = node.bool_or("gated_mlp", false);
  check_divisibility(node, spec);
  refuse_unsupported_variants(node, spec);
  return spec;
}

ModelCatalogue ModelCatalogue::load(const ConfigNode& root) {
  root.expect_keys({"models"});
  ModelCatalogue catalogue;
  for (const auto& [id, entry] : root.child("models").entries()) {
    catalogue.models_.push_back(parse_transformer_spec(entry, id));
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

std::vector<std::string> ModelCatalogue::ids() const {
  std::vector<std::string> out;
  for (const auto& m : models_) out.push_back(m.name);
  return out;
}

}  // namespace simctl
