// The MLP of a mixture-of-experts block (Mixtral; Megatron-core's MoELayer
// with the all-to-all token dispatcher and GroupedMLP experts) as one rank
// runs it, between the block's second norm and its residual add:
//
//   router        logits = X W_r (rows x hidden x experts), softmax and top-k
//   permute       gather each token's top_k copies, grouped by expert
//   dispatch      all-to-all over the EP group: every copy goes to the rank
//                 holding its expert (then, with TP, an all-gather of the
//                 copies over the TP group: experts are TP-split like an MLP)
//   experts       grouped GEMMs fc1, activation, fc2 over this rank's
//                 experts / e local experts
//   combine       (TP reduce-scatter, then) the all-to-all back
//   unpermute     weight each copy by its gate and sum a token's top_k copies
//
// Routing is taken as balanced (the auxiliary load-balancing loss's aim):
// every expert gets tokens * top_k / experts copies, so every rank of a stage
// runs the same program. With EP e each rank keeps 1/e of the copies it
// routes and sends the rest, which the all-to-all's bytes say (nccl-tests
// counts the whole per-rank buffer).
#include "workloads/parameter_layout.hpp"
#include "workloads/pass_geometry.hpp"

namespace simctl {
namespace {

// Softmax over the expert logits (5 per element, as attention's) plus the
// top-k selection's compares; its backward is the softmax's.
constexpr double kRouterForwardFlops = 7.0;
constexpr double kRouterBackwardFlops = 4.0;
constexpr double kCombineFlops = 2.0;  // scale a copy by its gate, add it to its token

// `experts` products C[m,n] = A[m,k] B[k,n] in one launch (a CUTLASS grouped
// GEMM): their tiles share the waves over the SMs, as a batched GEMM's do,
// and each reads its own expert's weights.
ComputeWork grouped_gemm(std::int64_t experts, std::int64_t m, std::int64_t n, std::int64_t k, DType dtype,
                         int c_bytes_per_element) {
  ComputeWork w = gemm_work(m, n, k, dtype, c_bytes_per_element);
  w.batch = experts;
  w.flops *= static_cast<double>(experts);
  w.memory_bytes *= static_cast<double>(experts);
  return w;
}

struct ExpertGemms {
  const PassGeometry& g;

  int act_bytes() const { return bytes_per_element(g.p.dtype); }
  int grad_bytes() const { return bytes_per_element(g.p.grad_dtype); }
  // Forward Y[r,n] = X[r,k] W[k,n] per expert; dgrad dX[r,k] = dY W^T; wgrad dW[k,n] = X^T dY.
  ComputeWork forward(std::int64_t n, std::int64_t k) const {
    return grouped_gemm(g.local_experts(), g.expert_rows(), n, k, g.p.dtype, act_bytes());
  }
  ComputeWork dgrad(std::int64_t n, std::int64_t k) const {
    return grouped_gemm(g.local_experts(), g.expert_rows(), k, n, g.p.dtype, act_bytes());
  }
  ComputeWork wgrad(std::int64_t n, std::int64_t k) const {
    return grouped_gemm(g.local_experts(), k, n, g.expert_rows(), g.p.dtype, grad_bytes());
  }
};

std::int64_t router_rows(const PassGeometry& g) { return static_cast<std::int64_t>(g.sequence_rows()); }

double router_elements(const PassGeometry& g) { return g.sequence_rows() * static_cast<double>(g.p.model.experts); }

double routed_hidden_elements(const PassGeometry& g) { return g.routed_rows() * static_cast<double>(g.p.model.hidden); }

double expert_ffn_elements(const PassGeometry& g) {
  return g.expert_slots() * static_cast<double>(g.local_expert_ffn());
}

// Scatter or gather between token rows and their top_k copies: the copies
// are read or written once, the token rows once per top_k copies.
ComputeWork permute_work(const PassGeometry& g, double flops) {
  const double tensors = 1.0 + 1.0 / static_cast<double>(g.p.model.experts_per_token);
  return streaming_work(ComputeKind::elementwise, g.p.dtype, routed_hidden_elements(g), flops, tensors);
}

void expert_all_to_all(const PassGeometry& g, const std::string& name, OpPhase phase, OpList& out,
                       int consumer_offset = 0) {
  if (g.expert_parallel()) {
    out.comm(name, phase, CollectiveOp::all_to_all, g.routed_bytes(), consumer_offset, ModelGroup::expert);
  }
}

void tensor_collective(const PassGeometry& g, const std::string& name, OpPhase phase, CollectiveOp op, OpList& out,
                       int consumer_offset = 0) {
  if (g.tensor_parallel()) out.comm(name, phase, op, g.expert_slot_bytes(), consumer_offset);
}

}  // namespace

void append_moe_forward(const PassGeometry& g, const std::string& at, OpPhase phase, OpList& out) {
  const auto& m = g.p.model;
  const ExpertGemms gemm{g};
  out.compute(at + "router", phase,
              gemm_work(router_rows(g), m.experts, m.hidden, g.p.dtype, bytes_per_element(g.p.dtype)));
  out.compute(at + "router.topk", phase,
              streaming_work(ComputeKind::softmax, g.p.dtype, router_elements(g), kRouterForwardFlops, 2.0));
  out.compute(at + "moe.permute", phase, permute_work(g, 0.0));
  expert_all_to_all(g, at + "moe.dispatch", phase, out);
  tensor_collective(g, at + "moe.dispatch.all_gather", phase, CollectiveOp::all_gather, out);
  out.compute(at + "experts.fc1", phase, gemm.forward(g.local_expert_up_columns(), m.hidden));
  out.compute(at + "experts." + activation_name(m), phase, mlp_activation_forward(g, expert_ffn_elements(g)));
  out.compute(at + "experts.fc2", phase, gemm.forward(m.hidden, g.local_expert_ffn()));
  tensor_collective(g, at + "moe.combine.reduce_scatter", phase, CollectiveOp::reduce_scatter, out);
  expert_all_to_all(g, at + "moe.combine", phase, out);
  out.compute(at + "moe.unpermute", phase, permute_work(g, kCombineFlops));
}

// Mirrors the forward: the gradients of the copies travel back along the
// combine's path, through the experts, and back along the dispatch's. The
// dispatch's return trip (and, with TP, its reduce-scatter) overlaps the
// experts' fc1 weight-gradient GEMM.
void append_moe_backward(const PassGeometry& g, std::int64_t layer, const std::string& at, OpList& out) {
  const auto& m = g.p.model;
  const OpPhase bw = OpPhase::backward;
  const ExpertGemms gemm{g};
  auto grads = [&](std::initializer_list<BlockTensor> tensors) { return block_tensor_indices(m, layer, tensors); };
  // dY to each copy (times its gate) and each gate's gradient (dY . copy).
  out.compute(at + "moe.unpermute.bwd", bw,
              streaming_work(ComputeKind::elementwise, g.p.dtype, routed_hidden_elements(g), 2.0 * kCombineFlops, 3.0));
  expert_all_to_all(g, at + "moe.combine.bwd", bw, out);
  tensor_collective(g, at + "moe.combine.bwd.all_gather", bw, CollectiveOp::all_gather, out);
  out.compute(at + "experts.fc2.dgrad", bw, gemm.dgrad(m.hidden, g.local_expert_ffn()));
  out.compute(at + "experts.fc2.wgrad", bw, gemm.wgrad(m.hidden, g.local_expert_ffn()),
              grads({BlockTensor::experts_fc2_weight, BlockTensor::experts_fc2_bias}));
  out.compute(at + "experts." + activation_name(m) + ".bwd", bw, mlp_activation_backward(g, expert_ffn_elements(g)));
  out.compute(at + "experts.fc1.dgrad", bw, gemm.dgrad(g.local_expert_up_columns(), m.hidden));
  tensor_collective(g, at + "moe.dispatch.bwd.reduce_scatter", bw, CollectiveOp::reduce_scatter, out, 1);
  expert_all_to_all(g, at + "moe.dispatch.bwd", bw, out, 1);
  out.compute(at + "experts.fc1.wgrad", bw, gemm.wgrad(g.local_expert_up_columns(), m.hidden),
              grads({BlockTensor::experts_fc1_weight, BlockTensor::experts_fc1_bias}));
  out.compute(at + "moe.permute.bwd", bw, permute_work(g, 1.0));
  out.compute(at + "router.topk.bwd", bw,
              streaming_work(ComputeKind::softmax, g.p.dtype, router_elements(g), kRouterBackwardFlops, 3.0));
  // The router's input gradient is added to the permute's in the epilogue.
  out.compute(at + "router.dgrad", bw,
              gemm_work(router_rows(g), m.hidden, m.experts, g.p.dtype, bytes_per_element(g.p.dtype)));
  out.compute(at + "router.wgrad", bw,
              gemm_work(m.hidden, m.experts, router_rows(g), g.p.dtype, bytes_per_element(g.p.grad_dtype)),
              grads({BlockTensor::router_weight}));
}

}  // namespace simctl
