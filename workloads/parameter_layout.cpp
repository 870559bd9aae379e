#include "workloads/parameter_layout.hpp"

namespace simctl {
namespace {

constexpr std::size_t kTensorsPerBlock = static_cast<std::size_t>(BlockTensor::count);
constexpr std::size_t kEmbeddingTensors = 2;

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
    case BlockTensor::mlp_up_weight:
    case BlockTensor::mlp_down_weight: return s.hidden * s.ffn;
    case BlockTensor::mlp_up_bias: return s.ffn;
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
    case BlockTensor::mlp_up_weight: return "mlp.c_fc.weight";
    case BlockTensor::mlp_up_bias: return "mlp.c_fc.bias";
    case BlockTensor::mlp_down_weight: return "mlp.c_proj.weight";
    case BlockTensor::mlp_down_bias: return "mlp.c_proj.bias";
    case BlockTensor::count: break;
  }
  return "?";
}

}  // namespace

std::size_t block_tensor_index(std::int64_t layer, BlockTensor t) {
  return kEmbeddingTensors + static_cast<std::size_t>(layer) * kTensorsPerBlock + static_cast<std::size_t>(t);
}

// The final LayerNorm sits where a block after the last one would start.
std::size_t final_norm_weight_index(const TransformerSpec& spec) {
  return block_tensor_index(spec.layers, BlockTensor::ln1_weight);
}

std::size_t final_norm_bias_index(const TransformerSpec& spec) { return final_norm_weight_index(spec) + 1; }

std::vector<ParameterTensor> parameter_tensors(const TransformerSpec& spec) {
  std::vector<ParameterTensor> out;
  out.push_back({"wte.weight", spec.vocab * spec.hidden});
  out.push_back({"wpe.weight", spec.seq_len * spec.hidden});
  for (std::int64_t layer = 0; layer < spec.layers; ++layer) {
    for (std::size_t t = 0; t < kTensorsPerBlock; ++t) {
      const auto which = static_cast<BlockTensor>(t);
      out.push_back(
          {"h." + std::to_string(layer) + "." + block_tensor_name(which), block_tensor_elements(spec, which)});
    }
  }
  out.push_back({"ln_f.weight", spec.hidden});
  out.push_back({"ln_f.bias", spec.hidden});
  return out;
}

}  // namespace simctl
