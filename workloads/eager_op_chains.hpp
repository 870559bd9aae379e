#pragma once
// A Llama block's elementwise parts as torchtitan's eager model code runs
// them (pytorch/torchtitan@9dec370ad26b torchtitan/models/norms.py RMSNorm,
// torchtitan/models/llama/model.py apply_rotary_emb, repeat_kv, Attention
// and FeedForward.forward), where simctl otherwise prices one fused kernel
// each (read once, write once):
//   RMSNorm   x.float(), pow(2), mean, + eps, rsqrt, x * r, .type_as(x),
//             * weight: fp32 copies between every step; backward through
//             autograd, each op's gradient its own kernel;
//   RoPE      Q and K cast to fp32, viewed as complex, multiplied by the
//             frequencies, cast back;
//   SwiGLU    F.silu(w1(x)) * w3(x): two kernels, and three in backward;
//   GQA       repeat_kv expands K and V to the query heads and copies them,
//             and the attention output is transposed and made contiguous.
// Each kernel is a memory-bound op of its own (bytes per element in
// eager_op_chains.cpp; docs/accuracy.md, "torchtitan's Llama 3.1 8B");
// torch.compile (`compile: true`) fuses each chain back into one kernel.
// Internal to workloads/.
#include <string>
#include <vector>

#include "workloads/pass_geometry.hpp"

namespace simctl {

// Whether this pass runs the chains: a framework whose model code has them
// (frameworks.yaml, eager_op_chains), not compiled.
bool runs_eager_op_chains(const PassGeometry& g);

// Each appends the chain in place of the one fused op `name` (the chain's
// ops are `name.<kernel>`); the last op carries `grads`.
void append_rms_norm_forward_chain(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out);
void append_rms_norm_backward_chain(const PassGeometry& g, const std::string& name, std::vector<std::size_t> grads,
                                    OpList& out);
void append_rope_chain(const PassGeometry& g, const std::string& name, OpPhase phase, bool backward, OpList& out);
void append_swiglu_chain(const PassGeometry& g, const std::string& name, OpPhase phase, bool backward, OpList& out);
// repeat_kv's copies of K and V before the fused attention kernel (after it
// in backward: the gradients summed back); nothing without the chains or GQA.
void append_repeat_kv(const PassGeometry& g, const std::string& at, OpPhase phase, bool backward, OpList& out);
// The attention output's transpose made contiguous for the output
// projection (backward: its gradient's); nothing without the chains or
// under unfused attention.
void append_attention_output_copy(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out);

}  // namespace simctl
