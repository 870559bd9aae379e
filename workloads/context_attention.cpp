// Attention over a sequence split on the context-parallel ranks: ring,
// all-gather and all-to-all (context_parallel.hpp).
#include "workloads/context_parallel.hpp"

namespace simctl {
namespace {

// The forward's tensors a fused kernel streams (Q and O; K and V) and the
// backward's (Q, O, dO, dQ; K, V, dK, dV).
constexpr double kForwardTensors = 2.0;
constexpr double kBackwardTensors = 4.0;
// The ring's output correction after each step but the first: it reads the
// step's partial output and the running one and writes the merged output
// (the log-sum-exp statistics are one value per row, too few to count).
constexpr double kCorrectionTensors = 3.0;
constexpr double kCorrectionFlops = 4.0;  // two exp-scaled terms, a sum, a normalise

std::int64_t cp(const PassGeometry& g) { return g.p.context; }

std::string step_name(const std::string& base, std::int64_t step) { return base + ".step" + std::to_string(step); }

// Bytes of `positions` sequence positions of this rank's K and V.
double kv_bytes(const PassGeometry& g, std::int64_t positions) {
  return static_cast<double>(g.p.micro_batch * positions) * 2.0 * static_cast<double>(g.local_kv_width()) *
         bytes_per_element(g.p.dtype);
}

// Elements of this rank's attention output: its s/cp positions, its heads.
double output_elements(const PassGeometry& g) { return g.tokens() * static_cast<double>(g.local_hidden()); }

// Bytes of this rank's s/cp positions of `width` columns (Q, O, dO, dQ).
double local_bytes(const PassGeometry& g, std::int64_t width) {
  return g.tokens() * static_cast<double>(width) * bytes_per_element(g.p.dtype);
}

// Ring step `i` of the load-balanced layout: step 0 is the rank's own two
// chunks (s/cp positions, causal), a later step its s/cp queries against one
// chunk (s/(2cp) keys) of another rank's block, unmasked: the same FLOPs.
AttentionBlock ring_block(const PassGeometry& g, std::int64_t step) {
  const std::int64_t local = g.local_seq();
  if (step == 0) return {local, local, g.local_heads(), g.local_kv_heads(), true};
  return {local, local / 2, g.local_heads(), g.local_kv_heads(), false};
}

// The local queries against the whole gathered prefix: the causal mask over
// the rank's two chunks skips half of the s/cp x s products.
AttentionBlock gathered_block(const PassGeometry& g) {
  return {g.local_seq(), g.p.model.seq_len, g.local_heads(), g.local_kv_heads(), true};
}

// Ulysses: the whole sequence on heads / cp of this rank's heads.
AttentionBlock ulysses_block(const PassGeometry& g) {
  const std::int64_t s = g.p.model.seq_len;
  return {s, s, g.local_heads() / cp(g), g.local_kv_heads() / cp(g), true};
}

void ring_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out) {
  const std::string base = prefix + "attention";
  const double block_bytes = context_kv_bytes(g);
  // Step i's receive feeds block i, i compute ops after step 0's kernel
  // (each later block is followed by its correction: 2 ops a step).
  for (std::int64_t i = 1; i < cp(g); ++i) {
    out.context_ring_step(step_name(base + ".kv", i), phase, block_bytes, static_cast<int>(2 * i - 1), ContextRing::kv,
                          i == 1);
  }
  for (std::int64_t i = 0; i < cp(g); ++i) {
    out.compute(step_name(base, i), phase,
                fused_attention_work(g, ring_block(g, i), 1.0, kForwardTensors, kForwardTensors, false));
    if (i == 0) continue;
    out.compute(
        step_name(base + ".correction", i), phase,
        streaming_work(ComputeKind::elementwise, g.p.dtype, output_elements(g), kCorrectionFlops, kCorrectionTensors));
  }
}

// K/V blocks go round as in forward; after block i's backward the rank sends
// that block's dK/dV accumulator on, having received it from the previous
// rank (step i - 1 there); the last hop returns each rank its own block's,
// which the op after attention waits for.
void ring_backward(const PassGeometry& g, const std::string& prefix, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  const std::string base = prefix + "attention.bwd";
  const double block_bytes = context_kv_bytes(g);
  for (std::int64_t i = 1; i < cp(g); ++i) {
    out.context_ring_step(step_name(base + ".kv", i), bw, block_bytes, static_cast<int>(i), ContextRing::kv, i == 1);
  }
  for (std::int64_t i = 0; i < cp(g); ++i) {
    out.compute(step_name(base, i), bw,
                fused_attention_work(g, ring_block(g, i), kAttentionBackwardFlopsRatio, kBackwardTensors,
                                     kBackwardTensors, true));
    const bool last = i + 1 == cp(g);
    out.context_ring_step(step_name(base + ".dkv", i + 1), bw, block_bytes, last ? 0 : -1, ContextRing::dkv, i == 0);
  }
}

void gather_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out) {
  const std::string base = prefix + "attention";
  out.comm(base + ".kv.all_gather", phase, CollectiveOp::all_gather, kv_bytes(g, g.p.model.seq_len), 0,
           ModelGroup::context);
  out.compute(base, phase, fused_attention_work(g, gathered_block(g), 1.0, kForwardTensors, kForwardTensors, false));
}

void gather_backward(const PassGeometry& g, const std::string& prefix, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  const std::string base = prefix + "attention.bwd";
  const double gathered = kv_bytes(g, g.p.model.seq_len);
  out.comm(base + ".kv.all_gather", bw, CollectiveOp::all_gather, gathered, 0, ModelGroup::context);
  out.compute(base, bw,
              fused_attention_work(g, gathered_block(g), kAttentionBackwardFlopsRatio, kBackwardTensors,
                                   kBackwardTensors, true));
  out.comm(base + ".dkv.reduce_scatter", bw, CollectiveOp::reduce_scatter, gathered, 0, ModelGroup::context);
}

// Q, K and V of the rank's positions, sent in one all-to-all (nccl-tests
// size: the rank's whole buffer; cp-1 of its cp parts leave the rank).
double qkv_bytes(const PassGeometry& g) { return local_bytes(g, g.local_hidden()) + context_kv_bytes(g); }

void ulysses_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out) {
  const std::string base = prefix + "attention";
  out.comm(base + ".qkv.all_to_all", phase, CollectiveOp::all_to_all, qkv_bytes(g), 0, ModelGroup::context);
  out.compute(base, phase, fused_attention_work(g, ulysses_block(g), 1.0, kForwardTensors, kForwardTensors, false));
  out.comm(base + ".out.all_to_all", phase, CollectiveOp::all_to_all, local_bytes(g, g.local_hidden()), 0,
           ModelGroup::context);
}

void ulysses_backward(const PassGeometry& g, const std::string& prefix, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  const std::string base = prefix + "attention.bwd";
  out.comm(base + ".dout.all_to_all", bw, CollectiveOp::all_to_all, local_bytes(g, g.local_hidden()), 0,
           ModelGroup::context);
  out.compute(base, bw,
              fused_attention_work(g, ulysses_block(g), kAttentionBackwardFlopsRatio, kBackwardTensors,
                                   kBackwardTensors, true));
  out.comm(base + ".dqkv.all_to_all", bw, CollectiveOp::all_to_all, qkv_bytes(g), 0, ModelGroup::context);
}

// PyTorch's context-parallel SDPA with its `allgather` rotater, as
// torchtitan runs it (pytorch/pytorch@0123248
// torch/distributed/tensor/experimental/_attention.py,
// _templated_ring_attention and its backward; torchtitan@9dec370 expands K
// and V to the query heads, repeat_kv, before SDPA). Per pass: K and V
// gathered at the query heads' width once, beside the first block; cp
// load-balanced SDPA calls (the ring's blocks), each output merged into a
// running fp32 one (_SDPAMerger with convert_to_f32). Backward: K and V
// gathered again, cp SDPA backward calls, dQ accumulated in fp32, and the
// dK/dV accumulators passed round the CP ring in fp32, each hop waiting for
// the last; the last brings the rank its own block's. Eager elementwise
// passes over fp32 tensors, counted from the code, not measured.
constexpr double kMergeTensors = 10.0;      // fp32 passes a merge makes: out - sig * (out - block), the cat
constexpr double kFirstMergeTensors = 1.5;  // the first block's output cast to fp32 (read 2 B, write 4 B)
constexpr double kAccumulateTensors = 2.5;  // fp32 += bf16: read 4 and 2 B, write 4 B
constexpr double kSendCopyTensors = 2.0;    // torch.cat of dK and dV into the buffer sent on
constexpr double kFinalCastTensors = 1.5;   // fp32 back to bf16 (read 4 B, write 2 B)

// K and V of `positions` positions at the query heads' width: elements, and
// bytes in `dtype`.
double expanded_kv_elements(const PassGeometry& g, std::int64_t positions) {
  return static_cast<double>(g.p.micro_batch * positions) * 2.0 * static_cast<double>(g.local_hidden());
}
double expanded_kv_bytes(const PassGeometry& g, std::int64_t positions, DType dtype) {
  return expanded_kv_elements(g, positions) * bytes_per_element(dtype);
}

AttentionBlock expanded_ring_block(const PassGeometry& g, std::int64_t step) {
  AttentionBlock block = ring_block(g, step);
  block.kv_heads = block.heads;
  return block;
}

ComputeWork fp32_pass(double elements, double tensors, double flops_per_element = 1.0) {
  return streaming_work(ComputeKind::elementwise, DType::fp32, elements, flops_per_element, tensors);
}

void torch_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out) {
  const std::string base = prefix + "attention";
  // Waited for by block 1, after block 0 and its merge.
  out.comm(base + ".kv.all_gather", phase, CollectiveOp::all_gather, expanded_kv_bytes(g, g.p.model.seq_len, g.p.dtype),
           2, ModelGroup::context);
  for (std::int64_t i = 0; i < cp(g); ++i) {
    out.compute(step_name(base, i), phase,
                fused_attention_work(g, expanded_ring_block(g, i), 1.0, kForwardTensors, kForwardTensors, false));
    out.compute(step_name(base + ".merge", i), phase,
                fp32_pass(output_elements(g), i == 0 ? kFirstMergeTensors : kMergeTensors, i == 0 ? 0.0 : 4.0));
  }
  out.compute(base + ".merged.to_bf16", phase, fp32_pass(output_elements(g), kFinalCastTensors, 0.0));
}

void torch_backward(const PassGeometry& g, const std::string& prefix, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  const std::string base = prefix + "attention.bwd";
  const double local_kv_elements = expanded_kv_elements(g, g.local_seq());
  // Waited for by block 1's backward, after block 0's and its accumulations.
  out.comm(base + ".kv.all_gather", bw, CollectiveOp::all_gather, expanded_kv_bytes(g, g.p.model.seq_len, g.p.dtype), 3,
           ModelGroup::context);
  for (std::int64_t i = 0; i < cp(g); ++i) {
    out.compute(step_name(base, i), bw,
                fused_attention_work(g, expanded_ring_block(g, i), kAttentionBackwardFlopsRatio, kBackwardTensors,
                                     kBackwardTensors, true));
    out.compute(step_name(base + ".dq_accumulate", i), bw, fp32_pass(output_elements(g), kAccumulateTensors));
    out.compute(step_name(base + ".dkv_accumulate", i), bw,
                fp32_pass(local_kv_elements, kAccumulateTensors + kSendCopyTensors));
    const bool last = i + 1 == cp(g);
    out.context_ring_step(step_name(base + ".dkv", i + 1), bw, expanded_kv_bytes(g, g.local_seq(), DType::fp32),
                          last ? 0 : -1, ContextRing::dkv, i == 0);
  }
  // The last hop's receive (the rank's own block's dK/dV) feeds the first.
  out.compute(base + ".dkv.to_bf16", bw, fp32_pass(local_kv_elements, kFinalCastTensors, 0.0));
  out.compute(base + ".dq.to_bf16", bw, fp32_pass(output_elements(g), kFinalCastTensors, 0.0));
}

}  // namespace

double context_kv_bytes(const PassGeometry& g) { return kv_bytes(g, g.local_seq()); }

void append_context_attention_forward(const PassGeometry& g, const std::string& prefix, OpPhase phase, OpList& out) {
  switch (g.p.context_algorithm) {
    case ContextAlgorithm::ring: return ring_forward(g, prefix, phase, out);
    case ContextAlgorithm::all_gather: return gather_forward(g, prefix, phase, out);
    case ContextAlgorithm::all_to_all: return ulysses_forward(g, prefix, phase, out);
    case ContextAlgorithm::torch_all_gather: return torch_forward(g, prefix, phase, out);
  }
}

void append_context_attention_backward(const PassGeometry& g, const std::string& prefix, OpList& out) {
  switch (g.p.context_algorithm) {
    case ContextAlgorithm::ring: return ring_backward(g, prefix, out);
    case ContextAlgorithm::all_gather: return gather_backward(g, prefix, out);
    case ContextAlgorithm::all_to_all: return ulysses_backward(g, prefix, out);
    case ContextAlgorithm::torch_all_gather: return torch_backward(g, prefix, out);
  }
}

}  // namespace simctl
