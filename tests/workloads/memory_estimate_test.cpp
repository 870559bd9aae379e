#include "workloads/memory_estimate.hpp"

#include <catch2/catch.hpp>

#include "memory_items.hpp"
#include "workloads/model_catalogue.hpp"

using namespace simctl;
using simctl::testing::bytes_of;

namespace {

constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;

// GPT-3 175B on TP 8 x PP 8, micro-batch 1, interleaved with 3 chunks, as in
// Korthikanti et al. 2022 Figure 1 (C-Korthikanti-175B-activation-mem).
WorkloadSpec gpt_175b(bool sequence, ActivationRecompute recompute) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  WorkloadSpec spec;
  spec.model = *catalogue.find("megatron-gpt-175b");
  spec.parallel.tensor = 8;
  spec.parallel.pipeline = 8;
  spec.parallel.sequence = sequence;
  spec.parallel.schedule = PipelineSchedule::interleaved;
  spec.parallel.virtual_stages = 3;
  spec.micro_batch = 1;
  spec.global_batch = 64;
  spec.grad_accum = 64;
  spec.precision = DType::fp16;
  spec.ddp.grad_dtype = DType::fp16;
  spec.recompute = recompute;
  spec.attention = AttentionKernel::unfused;
  spec.dropout = 0.1;
  return spec;
}

}  // namespace

TEST_CASE("Korthikanti 175B first-stage activations within 10%", "[workloads][memory]") {
  const auto selective = estimate_memory(gpt_175b(true, ActivationRecompute::selective));
  const double measured_selective_gib = 12.35;
  CHECK(bytes_of(selective[0], "activations") / kGiBytes == Approx(measured_selective_gib).epsilon(0.10));
  // Figure 1's no-recompute bar is tensor parallelism without SP.
  const auto none = estimate_memory(gpt_175b(false, ActivationRecompute::none));
  const double measured_none_gib = 66.84;
  CHECK(bytes_of(none[0], "activations") / kGiBytes == Approx(measured_none_gib).epsilon(0.10));
}

TEST_CASE("per-layer activations follow the Korthikanti formulas", "[workloads][memory]") {
  WorkloadSpec spec = gpt_175b(false, ActivationRecompute::none);
  const double s = 2048, b = 1, h = 12288, a = 96, t = 8;
  CHECK(layer_activation_bytes(spec) == Approx(s * b * h * (10 + 24 / t + 5 * a * s / (h * t))));
  spec.parallel.sequence = true;
  spec.recompute = ActivationRecompute::selective;
  CHECK(layer_activation_bytes(spec) == Approx(s * b * h * 34 / t));
  spec.recompute = ActivationRecompute::full;
  CHECK(layer_activation_bytes(spec) == Approx(2 * s * b * h / t));
}

TEST_CASE("ZeRO stages shard optimizer, then gradients, then weights", "[workloads][memory]") {
  WorkloadSpec spec = gpt_175b(true, ActivationRecompute::selective);
  spec.parallel.data = 4;
  auto row = [&](Strategy s) {
    spec.strategy = s;
    return estimate_memory(spec)[1];
  };
  const auto ddp = row(Strategy::ddp), z1 = row(Strategy::zero1), z2 = row(Strategy::zero2), z3 = row(Strategy::zero3);
  CHECK(bytes_of(z1, "optimizer_states") == Approx(bytes_of(ddp, "optimizer_states") / 4));
  CHECK(bytes_of(z1, "gradients") == Approx(bytes_of(ddp, "gradients")));
  CHECK(bytes_of(z2, "gradients") == Approx(bytes_of(ddp, "gradients") / 4));
  CHECK(bytes_of(z2, "weights") == Approx(bytes_of(ddp, "weights")));
  CHECK(bytes_of(z3, "weights") == Approx(bytes_of(ddp, "weights") / 4));
  // 12 bytes of fp32 state per parameter under mixed precision.
  CHECK(bytes_of(ddp, "optimizer_states") == Approx(6 * bytes_of(ddp, "weights")));
}
