// Memory under PyTorch FSDP: the fp32 shard, the root's parameters kept
// gathered, the block working set of backward, the loss's fp32 copies, and
// the loss and a block's backward as moments that do not add up.
#include <catch2/catch.hpp>

#include "memory_items.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/model_catalogue.hpp"

using namespace simctl;
using simctl::testing::bytes_of;

namespace {

WorkloadSpec llama_8b_fsdp(Strategy strategy, std::int64_t data) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  WorkloadSpec spec;
  spec.model = *catalogue.find("llama3-8b");
  spec.parallel.data = data;
  spec.strategy = strategy;
  spec.micro_batch = 1;
  spec.global_batch = data;
  spec.precision = DType::bf16;
  spec.ddp.grad_dtype = DType::fp32;
  return spec;
}

// Embedding, final norm and head: the FSDP root's own parameters.
double fsdp_root_parameters(const TransformerSpec& m) { return 2.0 * m.vocab * m.hidden + m.hidden; }
double fsdp_block_parameters(const TransformerSpec& m) {
  return (static_cast<double>(m.parameter_count()) - fsdp_root_parameters(m)) / static_cast<double>(m.layers);
}

double temporary_of(const WorkloadSpec& spec) { return bytes_of(estimate_memory(spec)[0], "temporary"); }

}  // namespace

TEST_CASE("FSDP keeps an fp32 shard that is the master copy: 16 B per parameter", "[workloads][memory][fsdp]") {
  const auto spec = llama_8b_fsdp(Strategy::fsdp, 8);
  const double p = static_cast<double>(spec.model.parameter_count()) / 8.0;
  const auto row = estimate_memory(spec)[0];
  CHECK(bytes_of(row, "weights") == Approx(4.0 * p));
  CHECK(bytes_of(row, "gradients") == Approx(4.0 * p));
  CHECK(bytes_of(row, "optimizer_states") == Approx(8.0 * p));
  // DeepSpeed ZeRO-3 shards the bf16 weights and keeps fp32 masters with Adam's state.
  const auto zero3 = estimate_memory(llama_8b_fsdp(Strategy::zero3, 8))[0];
  CHECK(bytes_of(zero3, "weights") == Approx(2.0 * p));
  CHECK(bytes_of(zero3, "optimizer_states") == Approx(12.0 * p));
}

TEST_CASE("FSDP holds the root gathered all step and, at the loss, the last block", "[workloads][memory][fsdp]") {
  const auto spec = llama_8b_fsdp(Strategy::fsdp, 8);
  const auto& m = spec.model;
  const double loss = 8192.0 * m.vocab * (2.0 + 4.0);  // bf16 logits, fp32 softmax
  CHECK(temporary_of(spec) == Approx(2.0 * fsdp_root_parameters(m) + loss + 2.0 * fsdp_block_parameters(m)));
}

TEST_CASE("an FSDP block's backward holds two gathered blocks, its gradient and the reduce copy",
          "[workloads][memory][fsdp]") {
  auto spec = llama_8b_fsdp(Strategy::fsdp, 8);
  spec.model.vocab = 1024;  // a small head, so that a block's backward is the peak
  const auto& m = spec.model;
  // Current and prefetched blocks and the unsharded gradient in bf16, the
  // reduce-scatter's fp32 input.
  CHECK(temporary_of(spec) == Approx(2.0 * fsdp_root_parameters(m) + fsdp_block_parameters(m) * (3 * 2.0 + 4.0)));
}

TEST_CASE("an unfused fp32 loss holds three fp32 copies of the logits in its backward", "[workloads][memory]") {
  auto spec = llama_8b_fsdp(Strategy::fsdp, 8);
  const double bf16_loss = temporary_of(spec);  // bf16 logits and an fp32 softmax: 6 B a logit
  spec.loss_unfused_fp32 = true;
  // log-probabilities, their gradient and log_softmax's input gradient, fp32: 12 B a logit
  CHECK(temporary_of(spec) - bf16_loss == Approx(8192.0 * spec.model.vocab * 6.0));
  spec.precision = DType::fp32;  // forward: 4 + 4 + 4, backward 12: the same
  spec.ddp.grad_dtype = DType::fp32;
  const double fp32_loss = 8192.0 * spec.model.vocab * 12.0;
  CHECK(temporary_of(spec) ==
        Approx(4.0 * fsdp_root_parameters(spec.model) + fp32_loss + 4.0 * fsdp_block_parameters(spec.model)));
}

TEST_CASE("the loss and a re-run block are not held at once", "[workloads][memory]") {
  auto spec = llama_8b_fsdp(Strategy::ddp, 1);
  spec.recompute = ActivationRecompute::full;
  const double loss = 8192.0 * spec.model.vocab * (2.0 + 4.0);
  CHECK(temporary_of(spec) == Approx(loss));  // the re-run block (about 1.1 GB) is smaller
  spec.model.vocab = 1024;
  auto none = spec;
  none.recompute = ActivationRecompute::none;
  CHECK(temporary_of(spec) == Approx(layer_activation_bytes(none)));
}

TEST_CASE("a selective_op block re-runs what its policy did not save", "[workloads][memory][fsdp]") {
  auto spec = llama_8b_fsdp(Strategy::ddp, 1);
  spec.model.vocab = 1024;
  spec.recompute = ActivationRecompute::selective_op;
  auto none = spec;
  none.recompute = ActivationRecompute::none;
  CHECK(temporary_of(spec) == Approx(layer_activation_bytes(none) - layer_activation_bytes(spec)));
}

TEST_CASE("FSDP in a pipeline holds the stage's blocks gathered and their gradients unsharded all step",
          "[workloads][memory][fsdp]") {
  auto spec = llama_8b_fsdp(Strategy::fsdp, 8);
  spec.parallel.pipeline = 2;
  spec.global_batch = 8 * 4;
  spec.grad_accum = 4;
  const auto rows = estimate_memory(spec);
  REQUIRE(rows.size() == 2);
  // Stage 0: 16 blocks and the embedding, gathered in bf16, gradients accumulated in fp32.
  const auto& m = spec.model;
  const double stage0 = 16.0 * fsdp_block_parameters(m) + static_cast<double>(m.vocab * m.hidden);
  CHECK(bytes_of(rows[0], "temporary") >= 6.0 * stage0);
  CHECK(bytes_of(rows[0], "temporary") == Approx(6.0 * stage0).epsilon(0.05));
}
