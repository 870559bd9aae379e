// torchtitan's activation checkpointing: what its op-level policy keeps,
// which blocks per-layer AC re-runs, and the work both add to backward.
#include "workloads/activation_checkpointing.hpp"

#include <catch2/catch.hpp>

#include "memory_items.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/transformer_ops.hpp"

using namespace simctl;
using simctl::testing::bytes_of;

namespace {

WorkloadSpec llama_8b_ac(ActivationRecompute recompute) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  WorkloadSpec spec;
  spec.model = *catalogue.find("llama3-8b");
  spec.micro_batch = 2;
  spec.global_batch = 2;
  spec.recompute = recompute;
  return spec;
}

bool has_ac_op(const std::vector<ModelOp>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name == name) return true;
  }
  return false;
}

double ac_gemm_flops(const std::vector<ModelOp>& ops) {
  double sum = 0.0;
  for (const auto& op : ops) {
    if (op.work.kind == ComputeKind::gemm) sum += op.work.flops;
  }
  return sum;
}

PassShape ac_llama_pass(ActivationRecompute recompute, std::int64_t every, std::int64_t first_of_chunk = 0) {
  const auto spec = llama_8b_ac(recompute);
  PassShape p = whole_model_shape(spec.model, 1, DType::bf16, DType::bf16);
  p.recompute = recompute;
  p.recompute_blocks = {every, first_of_chunk, {0}};
  return p;
}

}  // namespace

TEST_CASE("selective_op keeps the input, SDPA's output and every other matmul's output", "[workloads][memory][ac]") {
  const auto spec = llama_8b_ac(ActivationRecompute::selective_op);
  const double tokens = 2.0 * 8192.0;
  // Input, attention output and its fp32 log-sum-exp (32 heads), then of
  // wq wk wv wo w1 w3 w2 the outputs of wq (4096), wv (1024), w1 (14336), w2 (4096).
  const double elements = 4096 + 4096 + 2 * 32 + 4096 + 1024 + 14336 + 4096;
  CHECK(layer_activation_bytes(spec) == Approx(tokens * elements * 2.0));
  // About 15.5 bytes per token and hidden unit, against Megatron selective's 34.
  CHECK(layer_activation_bytes(spec) / (tokens * 4096.0) == Approx(15.53).epsilon(0.001));
  auto megatron = spec;
  megatron.recompute = ActivationRecompute::selective;
  CHECK(layer_activation_bytes(megatron) / (tokens * 4096.0) == Approx(34.0));
}

TEST_CASE("selective_op under TP with SP saves the sharded outputs and the reduce-scatters'",
          "[workloads][memory][ac]") {
  auto spec = llama_8b_ac(ActivationRecompute::selective_op);
  spec.parallel.tensor = 2;
  spec.parallel.sequence = true;
  const double tokens = 2.0 * 8192.0;
  // Input /2, attention /2, lse (16 heads), wq /2, wv /2, w1 /2, w2's partial
  // sums whole, the two reduce-scatter outputs /2.
  const double elements = 2048 + 2048 + 2 * 16 + 2048 + 512 + 7168 + 4096 + 2 * 2048;
  CHECK(layer_activation_bytes(spec) == Approx(tokens * elements * 2.0));
}

TEST_CASE("full recompute every k checkpoints the k-th, 2k-th ... block only", "[workloads][memory][ac]") {
  CHECK_FALSE(block_checkpointed(ActivationRecompute::full, {2, 0, {0}}, 0));
  CHECK(block_checkpointed(ActivationRecompute::full, {2, 0, {0}}, 1));
  CHECK(block_checkpointed(ActivationRecompute::full, {1, 0, {0}}, 0));
  CHECK_FALSE(block_checkpointed(ActivationRecompute::selective_op, {1, 0, {0}}, 0));
  auto spec = llama_8b_ac(ActivationRecompute::full);
  spec.recompute_every = 2;
  const double kept_whole = layer_activation_bytes(llama_8b_ac(ActivationRecompute::none));
  const double input_only = layer_activation_bytes(llama_8b_ac(ActivationRecompute::full));
  CHECK(bytes_of(estimate_memory(spec)[0], "activations") == Approx(16 * kept_whole + 16 * input_only));
}

TEST_CASE("a selective_op block re-runs its unsaved matmuls and elementwise ops in backward", "[workloads][ac]") {
  const auto plain = backward_ops(ac_llama_pass(ActivationRecompute::none, 1));
  const auto op = backward_ops(ac_llama_pass(ActivationRecompute::selective_op, 1));
  CHECK(has_ac_op(op, "layer0.recompute.wk"));
  CHECK(has_ac_op(op, "layer0.recompute.wo"));
  CHECK(has_ac_op(op, "layer0.recompute.w3"));
  CHECK(has_ac_op(op, "layer0.recompute.ln1"));
  CHECK_FALSE(has_ac_op(op, "layer0.recompute.wq"));
  CHECK_FALSE(has_ac_op(op, "layer0.recompute.w1"));
  // wk (1024 x 4096), wo (4096 x 4096), w3 (14336 x 4096) per token, 2 FLOPs per MAC.
  const double per_layer = 2.0 * 8192.0 * 4096.0 * (1024 + 4096 + 14336);
  CHECK(ac_gemm_flops(op) - ac_gemm_flops(plain) == Approx(32 * per_layer));
}

TEST_CASE("per-layer AC re-runs only the checkpointed blocks' forward", "[workloads][ac]") {
  const auto all = backward_ops(ac_llama_pass(ActivationRecompute::full, 1));
  const auto half = backward_ops(ac_llama_pass(ActivationRecompute::full, 2));
  const auto plain = backward_ops(ac_llama_pass(ActivationRecompute::none, 1));
  CHECK(has_ac_op(half, "layer1.recompute.qkv"));
  CHECK_FALSE(has_ac_op(half, "layer0.recompute.qkv"));
  CHECK(ac_gemm_flops(half) - ac_gemm_flops(plain) == Approx(0.5 * (ac_gemm_flops(all) - ac_gemm_flops(plain))));
}

// Megatron's --recompute-method block --recompute-num-layers N: the first N
// blocks of each pipeline chunk re-run, the rest keep everything.
TEST_CASE("block recompute checkpoints the first N blocks of each pipeline chunk", "[workloads][memory][ac]") {
  const CheckpointedBlocks blocks{1, 3, {0, 8, 16, 24}};
  CHECK(block_checkpointed(ActivationRecompute::full, blocks, 0));
  CHECK(block_checkpointed(ActivationRecompute::full, blocks, 2));
  CHECK_FALSE(block_checkpointed(ActivationRecompute::full, blocks, 3));
  CHECK(block_checkpointed(ActivationRecompute::full, blocks, 8));
  CHECK_FALSE(block_checkpointed(ActivationRecompute::full, blocks, 15));
  // Under an uneven split a chunk's first N count from where it starts.
  const CheckpointedBlocks uneven{1, 2, {0, 7, 15}};
  CHECK(block_checkpointed(ActivationRecompute::full, uneven, 8));
  CHECK_FALSE(block_checkpointed(ActivationRecompute::full, uneven, 9));
  CHECK(block_checkpointed(ActivationRecompute::full, uneven, 16));
  CHECK_FALSE(block_checkpointed(ActivationRecompute::full, uneven, 14));
  auto spec = llama_8b_ac(ActivationRecompute::full);
  spec.parallel.pipeline = 4;  // chunks of 8 blocks: 3 checkpointed, 5 kept whole
  spec.recompute_layers = 3;
  const double kept_whole = layer_activation_bytes(llama_8b_ac(ActivationRecompute::none));
  const double input_only = layer_activation_bytes(llama_8b_ac(ActivationRecompute::full));
  const StageMemory first = estimate_memory(spec)[0];
  // Stage 0 holds 4 micro-batches in flight (1F1B), each 5 whole and 3 checkpointed blocks.
  CHECK(bytes_of(first, "activations") == Approx(first.in_flight * (5 * kept_whole + 3 * input_only)));
}

TEST_CASE("block recompute re-runs only the first N blocks' forward", "[workloads][ac]") {
  const auto all = backward_ops(ac_llama_pass(ActivationRecompute::full, 1));
  const auto first8 = backward_ops(ac_llama_pass(ActivationRecompute::full, 1, 8));
  const auto plain = backward_ops(ac_llama_pass(ActivationRecompute::none, 1));
  CHECK(has_ac_op(first8, "layer7.recompute.qkv"));
  CHECK_FALSE(has_ac_op(first8, "layer8.recompute.qkv"));
  CHECK(ac_gemm_flops(first8) - ac_gemm_flops(plain) == Approx(0.25 * (ac_gemm_flops(all) - ac_gemm_flops(plain))));
}
