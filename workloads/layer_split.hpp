#pragma once
// Which transformer blocks each pipeline chunk holds. Megatron-LM and
// torchtitan split a model's blocks evenly by default, but the runs that
// publish the largest figures do not: Llama 3 405B's 126 blocks leave one
// block fewer on the first and last stages (Meta; Megatron's
// --decoder-first/last-pipeline-num-layers), torchtitan's generated split
// puts the remainder in the middle stages, and NeMo's MLPerf 405B counts the
// embedding and the loss as layers (ASYM_PP_EMBED, ASYM_PP_LOSS).
// `parallel.stage_layers` lists the blocks of each virtual stage; without it
// the split is even.
#include <cstdint>
#include <vector>

namespace simctl {

struct WorkloadSpec;

// Blocks of virtual stage `virtual_stage` (chunk * pipeline + stage), and the
// first of them (0-based over the model).
std::int64_t chunk_block_count(const WorkloadSpec& spec, std::int64_t virtual_stage);
std::int64_t chunk_first_block(const WorkloadSpec& spec, std::int64_t virtual_stage);
// The first block of every virtual stage, in order (what block_checkpointed
// needs to find a block's place in its chunk).
std::vector<std::int64_t> chunk_first_blocks(const WorkloadSpec& spec);
// Blocks one rank of `stage` holds over all its chunks, and the most any
// chunk holds.
std::int64_t stage_block_count(const WorkloadSpec& spec, std::int64_t stage);
std::int64_t max_chunk_blocks(const WorkloadSpec& spec);

// `layers` blocks over `chunks` virtual stages as evenly as whole blocks go,
// the chunks one block short placed at the ends first (the first and last
// chunk, then the second and the second-to-last, ...), where the embedding
// and the head already sit: Meta's split of Llama 3 405B and torchtitan's
// generated one are this. Empty when `chunks` divides `layers` (the even
// split) or exceeds it (no split).
std::vector<std::int64_t> balanced_stage_layers(std::int64_t layers, std::int64_t chunks);

}  // namespace simctl
