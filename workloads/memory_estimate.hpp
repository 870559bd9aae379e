#pragma once
// Device memory one rank needs at its peak, by kind, under the plan:
//
//   weights           P x bytes(precision)                  (/d under ZeRO-3)
//   gradients         P x bytes(grad dtype)                 (/d under ZeRO-2, -3)
//   optimizer_states  P x 12 B (fp32 master weights, Adam m and v; 8 B without
//                     mixed precision)                      (/d under ZeRO-1, -2, -3)
//                     PyTorch FSDP instead keeps an fp32 shard that is the
//                     master copy, fp32 gradients and m, v: 4 + 4 + 8 B, /d
//   activations       peak in-flight chunk passes x layers per chunk x per-layer
//                     bytes (averaged over the stage's blocks under full
//                     recompute of every k-th block)
//   temporary         what lives only around one moment, at the larger of
//                     the loss (logits and their fp32 copies, last stage)
//                     and a block's backward (a re-run block's tensors;
//                     under FSDP the block and the next one gathered, its
//                     unsharded gradient and reduce copy), plus what both
//                     share: CP's K/V buffers, ZeRO-3's two gathered units,
//                     FSDP's root (embedding, final norm, head) kept
//                     gathered all step; nn.DataParallel's gathered outputs
//                     on the master
//
// A rank's gradients are counted at the peak like the rest of its state
// (frameworks that free them between steps leave them cached in the
// allocator, whose reserved bytes are what they log; docs/accuracy.md).
// P is what one rank of the stage holds (stage_layout.hpp): with a mixture
// of experts, its experts / expert of each block's experts, TP-split; ZeRO
// shards those over the data / expert ranks that hold them, not over d.
// A mixture of experts' activations: the experts' ffn-wide tensors for each
// token's top_k copies (/t), the copies themselves as the experts received
// them (2*top_k per s*b*h, whole) and as they came back (2*top_k, /t with SP).
// Per-layer
// activation bytes follow Korthikanti et al. 2022 ("Reducing Activation
// Recomputation in Large Transformer Models", Sec. 4, 2-byte activations,
// 1-byte dropout masks), with s = sequence, b = micro-batch, h = hidden,
// a = heads, t = TP degree:
//   no recompute:   s*b*h*(10 + 24/t) + 5*a*s^2*b/t   (SP also divides the 10 by t)
//   selective:      the 5*a*s^2*b/t score term is not kept
//   full:           2*s*b*h per layer (its input; /t with SP), plus one
//                   layer's full set while it is recomputed
//   selective_op:   torchtitan's op policy (activation_checkpointing.hpp):
//                   the block's input, the attention output and every other
//                   matmul's output, about 15.5*s*b*h for Llama 3 8B
// Context parallelism (cp ranks) keeps s/cp positions per rank, so every
// term with s is divided by cp, and `temporary` adds the K/V buffers in
// flight around one layer's attention (context_buffer_bytes: 4 blocks of
// s/cp positions for ring, the gathered K/V and their gradient for
// all_gather).
// With FlashAttention no score tensor exists (term 0); without dropout the
// masks go: 10 -> 8 and 5 -> 2 (only the softmax output remains).
// In-flight passes come from the stage's schedule (GPipe: m; 1F1B: p - stage;
// interleaved: Megatron's warm-up), not from a closed formula.
//
// Offload (offload.hpp) moves items to the rank's host memory (`host_items`):
//   optimizer: cpu    optimizer_states and the gradients' host copy; the GPU
//                     keeps two units' gradient buffers while they are copied
//                     out unit by unit (no data-parallel sync, one
//                     micro-batch), else all its gradients
//   activations: cpu  all but two blocks' activations (the one in use and
//                     the one in transit)
#include <cstdint>
#include <string>
#include <vector>

#include "workloads/workload_config.hpp"

namespace simctl {

struct MemoryUse {
  std::string name;  // weights, gradients, optimizer_states, activations, temporary
  double bytes = 0.0;
};

struct StageMemory {
  std::int64_t stage = 0;
  std::string role;  // "stage 3", or "master" / "replica" for nn.DataParallel
  std::vector<MemoryUse> items;
  std::int64_t in_flight = 0;         // chunk passes whose activations are held at the peak
  std::vector<MemoryUse> host_items;  // what one rank keeps in host memory (offload); empty without
  double total_bytes() const;
  double host_bytes() const;
};

// Bytes one layer keeps for backward, per micro-batch, on one TP rank.
double layer_activation_bytes(const WorkloadSpec& spec);

// One row per pipeline stage (ranks of a stage are alike), or master and
// replica rows for nn.DataParallel.
std::vector<StageMemory> estimate_memory(const WorkloadSpec& spec);

// The row that applies to `stage` (or, for nn.DataParallel, to rank 0 or not).
const StageMemory& memory_of_rank(const std::vector<StageMemory>& rows, const WorkloadSpec& spec,
                                  std::int64_t pipeline_stage, bool master);

}  // namespace simctl
