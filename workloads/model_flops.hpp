#pragma once
// The "useful" FLOPs of a training step that MFU is measured against.
//
// Convention: Megatron-LM's (Narayanan et al. 2021, "Efficient Large-Scale
// Language Model Training on GPU Clusters", eq. 3 without recompute):
//   F = 72 * B * s * L * h^2 * (1 + s/(6h) + V/(12*L*h))
// i.e. 3 passes (forward + 2x backward) over every matrix product: per block
// the QKV, output and MLP GEMMs (24*B*s*h^2 forward with ffn = 4h) and full,
// unmasked attention (4*B*s^2*h forward), plus the LM head (2*B*s*h*V).
// Causal masking, norms, element-wise ops and recomputation are not counted.
// Written here with the ffn width, QKV width (GQA) and MLP matrix count
// (SwiGLU: 3) as parameters, so it equals the formula above for GPT shapes.
// In general it is 6 * N_matmul * tokens plus attention, N_matmul being the
// parameters of every matrix product (all but the embedding lookup, the norms
// and the biases), as torchtitan counts Llama FLOPs. For a mixture of experts
// N_matmul counts the router and the experts_per_token experts a token runs
// through (the active parameters), not every expert. An encoder's task head
// replaces the LM head's term with its own GEMMs (model_flops.cpp).
#include "workloads/finetune.hpp"
#include "workloads/transformer_spec.hpp"

namespace simctl {

// Forward FLOPs of one sequence under the convention above.
double forward_model_flops_per_sequence(const TransformerSpec& model);
// Training FLOPs (3x forward) of `sequences` sequences.
double training_model_flops(const TransformerSpec& model, double sequences);
// The same under fine-tuning: frozen weights drop their weight-gradient
// product (a third of their 3 passes), blocks below everything that trains
// their whole backward, and adapters add 6 FLOPs per adapter parameter and
// token (their own 3 passes).
double finetune_model_flops(const TransformerSpec& model, const Finetune& tune, double sequences);

}  // namespace simctl
