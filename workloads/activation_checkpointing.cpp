#include "workloads/activation_checkpointing.hpp"

#include <algorithm>

#include "workloads/layer_split.hpp"

namespace simctl {

std::vector<BlockMatmul> block_matmuls(const TransformerSpec& model, std::int64_t tensor) {
  const std::int64_t h = model.hidden, kv = model.kv_width(), ffn = model.ffn;
  std::vector<BlockMatmul> mms{
      {"wq", h / tensor, h}, {"wk", kv / tensor, h}, {"wv", kv / tensor, h}, {"wo", h, h / tensor}};
  // kFirstMlpMatmul counts these four.
  if (model.gated_mlp) {
    mms.push_back({"w1", ffn / tensor, h});
    mms.push_back({"w3", ffn / tensor, h});
    mms.push_back({"w2", h, ffn / tensor});
  } else {
    mms.push_back({"fc1", ffn / tensor, h});
    mms.push_back({"fc2", h, ffn / tensor});
  }
  return mms;
}

bool selective_op_saves(std::size_t matmul_index) { return matmul_index % 2 == 0; }

double selective_op_saved_elements_per_token(const TransformerSpec& model, std::int64_t tensor, bool sequence) {
  const double t = static_cast<double>(tensor);
  const double h = static_cast<double>(model.hidden);
  const bool sp = sequence && tensor > 1;
  // The checkpoint's input, and SDPA's output plus its fp32 log-sum-exp
  // (one float per head and token: two bf16 elements' bytes).
  double elements = (sp ? h / t : h) + h / t + 2.0 * static_cast<double>(model.heads) / t;
  const auto mms = block_matmuls(model, tensor);
  for (std::size_t i = 0; i < mms.size(); ++i) {
    if (selective_op_saves(i)) elements += static_cast<double>(mms[i].n);
  }
  // reduce_scatter_tensor is on the save list: the row-parallel outputs as SP scatters them.
  if (sp) elements += 2.0 * h / t;
  return elements;
}

// The chunk starts matter only to block recompute's first N of each chunk.
CheckpointedBlocks checkpointed_blocks(const WorkloadSpec& spec) {
  if (spec.recompute_layers == 0) return {spec.recompute_every, 0, {0}};
  return {spec.recompute_every, spec.recompute_layers, chunk_first_blocks(spec)};
}

bool block_checkpointed(ActivationRecompute recompute, const CheckpointedBlocks& blocks, std::int64_t layer) {
  if (recompute != ActivationRecompute::full) return false;
  if (blocks.first_of_chunk > 0) {
    const auto& firsts = blocks.chunk_first_blocks;
    const auto chunk = std::upper_bound(firsts.begin(), firsts.end(), layer) - 1;
    return layer - *chunk < blocks.first_of_chunk;
  }
  return (layer + 1) % blocks.every == 0;
}

}  // namespace simctl
