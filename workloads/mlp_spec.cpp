#include "workloads/mlp_spec.hpp"

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

// Wide enough for any dense layer we would simulate, small enough that
// in * out stays far inside int64.
constexpr std::int64_t kMaxMlpWidth = 1'048'576;
constexpr std::size_t kMaxMlpLayers = 1024;

Activation parse_activation(const ConfigNode& node) {
  if (!node.has("activation")) return Activation::relu;
  const std::string name = node.choice("activation", {"relu", "gelu", "tanh"});
  if (name == "gelu") return Activation::gelu;
  return name == "tanh" ? Activation::tanh : Activation::relu;
}

std::vector<std::int64_t> parse_widths(const ConfigNode& node) {
  const auto items = node.elements();
  if (items.size() < 2 || items.size() > kMaxMlpLayers + 1) {
    node.fail("expected a list of 2 to " + std::to_string(kMaxMlpLayers + 1) +
              " widths: input features, then each layer's outputs");
  }
  std::vector<std::int64_t> widths;
  for (const auto& item : items) {
    const std::int64_t w = item.as_integer();
    if (w < 1 || w > kMaxMlpWidth) item.fail("must be a width from 1 to " + std::to_string(kMaxMlpWidth));
    widths.push_back(w);
  }
  return widths;
}

}  // namespace

std::int64_t MlpSpec::parameter_count() const {
  std::int64_t sum = 0;
  for (std::int64_t l = 0; l < layers(); ++l) sum += in_features(l) * out_features(l) + out_features(l);
  return sum;
}

bool is_mlp_node(const ConfigNode& node) { return node.is_map() && node.has("kind"); }

MlpSpec parse_mlp_spec(const ConfigNode& node, const std::string& name) {
  expect_section(node, "workload.model:mlp");
  node.choice("kind", {"mlp"});
  MlpSpec spec;
  spec.name = name;
  spec.source = node.string_or("source", "");
  spec.widths = parse_widths(node.child("layers"));
  spec.activation = parse_activation(node);
  return spec;
}

}  // namespace simctl
