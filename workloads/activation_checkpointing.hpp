#pragma once
// Activation checkpointing as PyTorch frameworks run it, beside Megatron's
// `selective` (memory_estimate.hpp):
//
//   selective_op   torchtitan's op-level selective AC
//                  (pytorch/torchtitan@004b3148a92b torchtitan/parallelisms/
//                  parallelize_llama.py, _apply_ac_to_transformer_block): a
//                  block runs under torch.utils.checkpoint with a policy that
//                  saves the outputs of aten.mm, the SDPA kernels and
//                  reduce_scatter, "except every second mm": the 1st, 3rd, ...
//                  matmul of the block's forward keep their output, the 2nd,
//                  4th, ... and every elementwise op (norms, RoPE, SiLU) are
//                  re-run in backward from the block's input.
//   full, every k  torchtitan's per-layer AC (selective_ac_option = k): the
//                  k-th, 2k-th, ... block (counted from 1) is checkpointed
//                  whole, the others keep every activation.
//
// A block's matmuls in forward order, as torchtitan's Llama writes them
// (separate wq, wk, wv; w2(silu(w1 x) * w3 x)), give what selective_op
// saves; the trace re-runs the others (transformer_ops.cpp).
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/transformer_spec.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// One matmul of a block on one TP rank: Y[T, n] = X[T, k] W[k, n].
struct BlockMatmul {
  std::string name;  // wq, wk, wv, wo, w1, w3, w2 (fc1, fc2 without a gated MLP)
  std::int64_t n = 0;
  std::int64_t k = 0;
};

// The block's matmuls in forward order, per TP rank (column-parallel ones
// split n, row-parallel ones k): attention's wq, wk, wv and wo, then the
// MLP's up-projections, then its down-projection, last.
std::vector<BlockMatmul> block_matmuls(const TransformerSpec& model, std::int64_t tensor);
// Where the MLP's matmuls begin in block_matmuls.
inline constexpr std::size_t kFirstMlpMatmul = 4;

// Whether selective_op keeps this matmul's output (its 1-based position in
// forward order is odd).
bool selective_op_saves(std::size_t matmul_index);

// Elements per token one TP rank keeps for a block under selective_op: its
// input (/t with SP), the saved matmul outputs, the attention output and its
// fp32 log-sum-exp (counted as 2 elements per head), and with SP the
// reduce-scatter outputs after wo and the MLP's down projection.
double selective_op_saved_elements_per_token(const TransformerSpec& model, std::int64_t tensor, bool sequence);

// Which blocks `full` recompute re-runs: every k-th over the model, or the
// first N of each pipeline chunk (0: no such limit).
struct CheckpointedBlocks {
  std::int64_t every = 1;
  std::int64_t first_of_chunk = 0;
  std::vector<std::int64_t> chunk_first_blocks{0};  // each pipeline chunk's first block (layer_split.hpp)
};
CheckpointedBlocks checkpointed_blocks(const WorkloadSpec& spec);

// Whether block `layer` (0-based, over the whole model) is re-run in
// backward under `recompute`.
bool block_checkpointed(ActivationRecompute recompute, const CheckpointedBlocks& blocks, std::int64_t layer);

}  // namespace simctl
