#pragma once
// The model's parameter tensors in the order `model.parameters()` lists them
// for a GPT (token embedding, position embedding, then each block, then the
// final LayerNorm). DDP builds its gradient buckets from this list in reverse,
// so the order matters, not just the sizes.
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/transformer_spec.hpp"

namespace simctl {

struct ParameterTensor {
  std::string name;
  std::int64_t elements = 0;
};

// The tensors of one block, in declaration order.
enum class BlockTensor : std::size_t {
  ln1_weight,
  ln1_bias,
  qkv_weight,
  qkv_bias,
  attn_out_weight,
  attn_out_bias,
  ln2_weight,
  ln2_bias,
  mlp_up_weight,
  mlp_up_bias,
  mlp_down_weight,
  mlp_down_bias,
  count,
};

inline constexpr std::size_t kTokenEmbeddingTensor = 0;
inline constexpr std::size_t kPositionEmbeddingTensor = 1;

std::size_t block_tensor_index(std::int64_t layer, BlockTensor t);
std::size_t final_norm_weight_index(const TransformerSpec& spec);
std::size_t final_norm_bias_index(const TransformerSpec& spec);

std::vector<ParameterTensor> parameter_tensors(const TransformerSpec& spec);

}  // namespace simctl
