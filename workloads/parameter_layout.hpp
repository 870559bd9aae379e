#pragma once
// The model's parameter tensors in the order `model.parameters()` lists them:
// token embedding, position embedding (learned positions only), token-type
// embedding (when the model has one), the embedding norm (post-LN), then each
// block, then the final norm (pre-LN), then the head's tensors: the LM head
// when it is not tied to the token embedding, or a task head's
// (transformer_spec.hpp). Which tensors a block has depends on the model's layout
// (LayerNorm bias, projection biases, the SwiGLU gate, a mixture of experts). DDP builds its
// gradient buckets from this list in reverse, so the order matters, not just
// the sizes.
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

// The tensors a block may have, in declaration order.
enum class BlockTensor : std::size_t {
  ln1_weight,
  ln1_bias,
  qkv_weight,
  qkv_bias,
  attn_out_weight,
  attn_out_bias,
  ln2_weight,
  ln2_bias,
  // A mixture-of-experts block has these instead of the mlp_ tensors: the
  // router, and each expert projection stacked over all experts as one
  // tensor, as Megatron-core's GroupedMLP holds them (fc1: gate and up).
  router_weight,
  experts_fc1_weight,
  experts_fc1_bias,
  experts_fc2_weight,
  experts_fc2_bias,
  mlp_gate_weight,
  mlp_gate_bias,
  mlp_up_weight,
  mlp_up_bias,
  mlp_down_weight,
  mlp_down_bias,
  count,
};

bool has_block_tensor(const TransformerSpec& spec, BlockTensor t);
// The expert tensors, whose gradients sync over the expert-data-parallel group.
bool is_expert_tensor(BlockTensor t);

inline constexpr std::size_t kTokenEmbeddingTensor = 0;

// Indices into parameter_tensors(spec). Asking for a tensor the model does not
// have (a bias of an unbiased model, a position table with RoPE) throws.
std::size_t block_tensor_index(const TransformerSpec& spec, std::int64_t layer, BlockTensor t);
// Those of `wanted` the model has, as indices.
std::vector<std::size_t> block_tensor_indices(const TransformerSpec& spec, std::int64_t layer,
                                              std::initializer_list<BlockTensor> wanted);
std::size_t position_embedding_index(const TransformerSpec& spec);
std::vector<std::size_t> embedding_tensor_indices(const TransformerSpec& spec);  // token (+ position, + type)
std::vector<std::size_t> embedding_norm_indices(const TransformerSpec& spec);    // post-LN: weight (+ bias)
std::vector<std::size_t> final_norm_indices(const TransformerSpec& spec);        // pre-LN: weight (+ bias)
std::size_t lm_head_index(const TransformerSpec& spec);
std::vector<std::size_t> head_tensor_indices(const TransformerSpec& spec);  // every tensor after the final norm

std::vector<ParameterTensor> parameter_tensors(const TransformerSpec& spec);
// The head's tensors (after the final norm), in that order: what
// TransformerSpec::head_parameters() sums.
std::vector<ParameterTensor> head_parameter_tensors(const TransformerSpec& spec);

}  // namespace simctl
