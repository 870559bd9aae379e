#include "workloads/lstm_spec.hpp"

#include "sim/config/config_schema.hpp"
#include "workloads/bounded_integer.hpp"

namespace simctl {
namespace {

// Keep 4h(in + h) and B*T*4h far inside int64, and the trace (two ops per
// layer per time step, forward and backward) to a size that fits in memory.
constexpr std::int64_t kMaxLstmWidth = 65'536;
constexpr std::int64_t kMaxLstmLayers = 64;
constexpr std::int64_t kMaxVocab = 4'194'304;
constexpr std::int64_t kMaxSteps = 4'096;

}  // namespace

std::int64_t LstmSpec::layer_parameters(std::int64_t layer) const {
  return gates() * (input_width(layer) + hidden) + (bias ? 2 * gates() : 0);
}

std::int64_t LstmSpec::parameter_count() const {
  std::int64_t sum = vocab * embedding;
  for (std::int64_t l = 0; l < layers; ++l) sum += layer_parameters(l);
  if (!tied_embeddings) sum += hidden * vocab;
  return sum + vocab;  // the decoder's bias
}

bool is_lstm_node(const ConfigNode& node) {
  return node.is_map() && node.has("kind") && node.child("kind").is_scalar() && node.string("kind") == "lstm";
}

LstmSpec parse_lstm_spec(const ConfigNode& node, const std::string& name) {
  expect_section(node, "workload.model:lstm");
  node.choice("kind", {"lstm"});
  LstmSpec spec;
  spec.name = name;
  spec.source = node.string_or("source", "");
  spec.vocab = bounded_positive_integer(node, "vocab", kMaxVocab);
  spec.hidden = bounded_positive_integer(node, "hidden", kMaxLstmWidth);
  spec.embedding = node.has("embedding") ? bounded_positive_integer(node, "embedding", kMaxLstmWidth) : spec.hidden;
  spec.layers = bounded_positive_integer(node, "layers", kMaxLstmLayers);
  spec.seq_len = bounded_positive_integer(node, "seq_len", kMaxSteps);
  spec.bias = node.bool_or("bias", true);
  spec.tied_embeddings = node.bool_or("tied_embeddings", false);
  if (spec.tied_embeddings && spec.embedding != spec.hidden) {
    node.child("tied_embeddings")
        .fail("a tied decoder reuses the embedding, so embedding (" + std::to_string(spec.embedding) +
              ") must equal hidden (" + std::to_string(spec.hidden) + ")");
  }
  return spec;
}

}  // namespace simctl
