#pragma once
// A multilayer perceptron described by its layer widths: widths[0] input
// features, then one fully connected layer (weight + bias) per following
// width, an activation between layers (none after the last) and a softmax
// cross-entropy loss over the last width's logits. Read from a `kind: mlp`
// mapping in workloads/models.yaml or an inline `model:`.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_node.hpp"

namespace simctl {

enum class Activation : std::uint8_t { relu, gelu, tanh };

struct MlpSpec {
  std::string name;
  std::string source;
  std::vector<std::int64_t> widths;  // input features, then each layer's outputs
  Activation activation = Activation::relu;

  std::int64_t layers() const { return static_cast<std::int64_t>(widths.size()) - 1; }
  std::int64_t in_features(std::int64_t layer) const { return widths[static_cast<std::size_t>(layer)]; }
  std::int64_t out_features(std::int64_t layer) const { return widths[static_cast<std::size_t>(layer) + 1]; }
  // Exact: sum over layers of in * out + out.
  std::int64_t parameter_count() const;
};

// True when a model mapping names `kind: mlp`.
bool is_mlp_node(const ConfigNode& node);
// Reads `{kind: mlp, layers: [in, ..., out], activation, source}`.
MlpSpec parse_mlp_spec(const ConfigNode& node, const std::string& name);

}  // namespace simctl
