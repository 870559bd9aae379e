// The Llama layout in the op builder: GQA-sized QKV and attention traffic,
// SwiGLU's fused gate/up GEMM and its element-wise op, RoPE, RMSNorm, the
// untied head, TP over KV heads, and the memory and FLOP figures that follow.
#include <catch2/catch.hpp>

#include "tests/workloads/op_named.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/parallel_trace.hpp"
#include "workloads/parameter_layout.hpp"
#include "workloads/transformer_ops.hpp"

using namespace simctl;

namespace {

TransformerSpec catalogue_model(const std::string& id) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const TransformerSpec* found = catalogue.find(id);
  REQUIRE(found != nullptr);
  return *found;
}

using testing::op_named;

bool has_op(const std::vector<ModelOp>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name == name) return true;
  }
  return false;
}

PassShape llama_pass(std::int64_t tensor) {
  PassShape p = whole_model_shape(catalogue_model("llama3-8b"), 1, DType::bf16, DType::bf16);
  p.tensor = tensor;
  return p;
}

}  // namespace

TEST_CASE("a Llama block has GQA QKV, RoPE, a fused gate/up GEMM and SwiGLU", "[workloads][llama]") {
  const auto fwd = forward_ops(llama_pass(1));
  const std::int64_t tokens = 8192;
  const auto& qkv = op_named(fwd, "layer0.qkv").work;
  CHECK(qkv.n == 4096 + 2 * 8 * 128);  // Q plus 8 KV heads of K and of V
  CHECK(qkv.m == tokens);
  CHECK(op_named(fwd, "layer0.mlp_up").work.n == 2 * 14336);  // gate and up side by side
  CHECK(op_named(fwd, "layer0.mlp_down").work.k == 14336);
  CHECK(op_named(fwd, "layer0.swiglu").work.kind == ComputeKind::elementwise);
  CHECK(op_named(fwd, "layer0.rope").work.kind == ComputeKind::elementwise);
  CHECK_FALSE(has_op(fwd, "layer0.gelu"));
  // Untied head: the LM head's wgrad completes its own weight.
  const auto bwd = backward_ops(llama_pass(1));
  const auto& m = llama_pass(1).model;
  CHECK(op_named(bwd, "lm_head.wgrad").grads_ready == std::vector<std::size_t>{lm_head_index(m)});
  CHECK(op_named(bwd, "layer3.mlp_up.wgrad").grads_ready ==
        std::vector<std::size_t>{block_tensor_index(m, 3, BlockTensor::mlp_gate_weight),
                                 block_tensor_index(m, 3, BlockTensor::mlp_up_weight)});
  CHECK(op_named(bwd, "layer0.ln1.bwd").grads_ready.size() == 1);  // RMSNorm: weight only
  CHECK(op_named(bwd, "embedding.bwd").grads_ready == std::vector<std::size_t>{kTokenEmbeddingTensor});
}

TEST_CASE("GQA shrinks the attention kernel's K/V traffic, not its FLOPs", "[workloads][llama]") {
  PassShape mha = llama_pass(1);
  mha.model.kv_heads = mha.model.heads;
  const auto gqa_attention = op_named(forward_ops(llama_pass(1)), "layer0.attention").work;
  const auto mha_attention = op_named(forward_ops(mha), "layer0.attention").work;
  CHECK(gqa_attention.flops == mha_attention.flops);
  // Q and O full size; K and V a quarter (8 of 32 heads): 2.5 / 4 of the bytes.
  CHECK(gqa_attention.memory_bytes == Approx(mha_attention.memory_bytes * 2.5 / 4.0));
}

TEST_CASE("tensor parallelism splits KV heads over ranks", "[workloads][llama][tp]") {
  const auto fwd = forward_ops(llama_pass(8));
  CHECK(op_named(fwd, "layer0.qkv").work.n == (4096 + 2 * 1024) / 8);  // 4 query heads, 1 KV head
  CHECK(op_named(fwd, "layer0.mlp_up").work.n == 2 * 14336 / 8);
  CHECK(op_named(fwd, "layer0.attention").work.batch == 4);  // local query heads
}

TEST_CASE("Llama memory follows GQA and SwiGLU", "[workloads][llama][memory]") {
  WorkloadSpec spec;
  spec.model = catalogue_model("llama3-8b");
  spec.micro_batch = 1;
  // Per s*b*h: 8 replicated (no dropout) + Q 2 + K,V 4 * 8/32 + out 2 +
  // SwiGLU 3 tensors * 2 * 14336/4096.
  const double per_token = 8.0 + 2.0 + 1.0 + 2.0 + 3.0 * 2.0 * 3.5;
  CHECK(layer_activation_bytes(spec) == Approx(per_token * 8192.0 * 4096.0));
}

TEST_CASE("a Llama 3 70B TP8 x PP2 trace builds with no embedding tie", "[workloads][llama][tp]") {
  WorkloadSpec spec;
  spec.model = catalogue_model("llama3-70b");
  spec.parallel.tensor = 8;
  spec.parallel.pipeline = 2;
  spec.grad_accum = 2;
  spec.global_batch = 2;
  const Trace trace = build_parallel_trace(spec);
  REQUIRE(trace.ranks.size() == 16);
  for (const auto& op : trace.ops(0)) CHECK(op.name != "embedding.grads.all_reduce");
  CHECK(trace.totals.parameters == Approx(70.55e9).epsilon(0.005));
}
