// The fused attention kernel classes and the dtype-aware GEMM terms on Hopper:
// behaviour that holds only because each kernel, pass and dtype has its own fit.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "models/devices/compute_model.hpp"
#include "models/devices/device_catalogue.hpp"
#include "models/devices/gemm_efficiency.hpp"
#include "tests/devices/gemm_work.hpp"

using namespace simctl;

namespace {

const DeviceCatalogue& catalogue() {
  static const DeviceCatalogue loaded = DeviceCatalogue::load();
  return loaded;
}

// One attention kernel over batch * heads = 16384 / seq * 16 heads of head dim
// 128 (FlashAttention's benchmark shape), FLOPs halved when causal.
ComputeWork attention(FusedAttention kernel, std::int64_t seq, std::int64_t head_dim, bool causal, bool backward) {
  ComputeWork w;
  w.kind = ComputeKind::attention;
  w.dtype = DType::bf16;
  w.attention_kernel = kernel;
  w.causal = causal;
  w.backward = backward;
  w.m = w.n = seq;
  w.k = head_dim;
  w.batch = 16384 / seq * (2048 / head_dim);
  const double s = static_cast<double>(seq), d = static_cast<double>(head_dim);
  w.flops = (backward ? 2.5 : 1.0) * (causal ? 0.5 : 1.0) * 4.0 * static_cast<double>(w.batch) * s * s * d;
  w.memory_bytes = (backward ? 8.0 : 4.0) * static_cast<double>(w.batch) * s * d * 2.0;
  return w;
}

TimePs time_of(const char* gpu, const ComputeWork& w) { return estimate_compute(catalogue().gpu(gpu), w).time; }

ComputeWork gemm(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype) {
  return testing::gemm_work(m, n, k, dtype);
}

double seconds_per_flop(const GpuSpec& gpu, const ComputeWork& w) {
  return ps_to_seconds(estimate_compute(gpu, w).time) / w.flops;
}

}  // namespace

TEST_CASE("on H100 a FlashAttention-3 or cuDNN forward (hd128, 16k, causal) is >= 1.5x FlashAttention-2",
          "[devices][attention]") {
  const auto flash2 = time_of("h100-sxm", attention(FusedAttention::flash2, 16384, 128, true, false));
  const auto flash3 = time_of("h100-sxm", attention(FusedAttention::flash3, 16384, 128, true, false));
  const auto cudnn = time_of("h100-sxm", attention(FusedAttention::cudnn, 16384, 128, true, false));
  CHECK(static_cast<double>(flash2) >= 1.5 * static_cast<double>(flash3));
  CHECK(static_cast<double>(flash2) >= 1.5 * static_cast<double>(cudnn));
  // cuDNN 9.19 (measured) is at least as fast as FA3 (its 2024 public figures) at hd128.
  CHECK(cudnn <= flash3);
  // The same kernels carry over to H200 and GH200 (same GH100 die).
  CHECK(time_of("h200", attention(FusedAttention::flash3, 16384, 128, true, false)) == flash3);
}

TEST_CASE("forward and backward are priced by their own curves", "[devices][attention]") {
  const GpuSpec& h100 = catalogue().gpu("h100-sxm");
  for (FusedAttention kernel : kAllFusedAttention) {
    INFO(to_string(kernel));
    const double fwd = attention_efficiency(h100, attention(kernel, 4096, 128, false, false));
    const double bwd = attention_efficiency(h100, attention(kernel, 4096, 128, false, true));
    CHECK(bwd < 0.95 * fwd);  // the backward's five GEMMs and atomics run further from peak
  }
}

TEST_CASE("causal masking and short sequences cost efficiency, head dim follows the fit", "[devices][attention]") {
  const GpuSpec& h100 = catalogue().gpu("h100-sxm");
  const auto eff = [&h100](std::int64_t seq, std::int64_t hd, bool causal) {
    return attention_efficiency(h100, attention(FusedAttention::cudnn, seq, hd, causal, false));
  };
  CHECK(eff(2048, 128, true) < 0.9 * eff(2048, 128, false));
  CHECK(eff(512, 128, false) < 0.8 * eff(16384, 128, false));
  // cuDNN's forward is fitted best at hd256 (0.74 of peak); between fitted head dims it interpolates.
  CHECK(eff(16384, 256, false) > eff(16384, 128, false));
  CHECK(eff(16384, 192, false) > eff(16384, 128, false));
  CHECK(eff(16384, 192, false) < eff(16384, 256, false));
}

TEST_CASE("A100 prices flash2 by its generic curve and has no FlashAttention-3 or cuDNN fit", "[devices][attention]") {
  const GpuSpec& a100 = catalogue().gpu("a100-sxm-80gb");
  CHECK(a100.compute.attention.runs(FusedAttention::flash2));
  CHECK_FALSE(a100.compute.attention.runs(FusedAttention::flash3));
  ComputeWork fwd = attention(FusedAttention::flash2, 4096, 128, true, false);
  fwd.dtype = DType::fp16;
  ComputeWork bwd = attention(FusedAttention::flash2, 4096, 128, true, true);
  bwd.dtype = DType::fp16;
  // The generic curve does not tell passes or masking apart (the A100 calibration is fwd+bwd).
  CHECK(attention_efficiency(a100, fwd) == attention_efficiency(a100, bwd));
  fwd.attention_kernel = FusedAttention::flash3;
  CHECK_THROWS_WITH(estimate_compute(a100, fwd), Catch::Contains("flash3") && Catch::Contains("a100-sxm-80gb"));
}

TEST_CASE("wave quantisation on H100: a GEMM just past a tile multiple costs more per FLOP", "[devices][gemm]") {
  const GpuSpec& h100 = catalogue().gpu("h100-sxm");
  // 132 rows of 256-row tiles: n = 1024 is 8 columns of 128 (8 waves); n = 1025
  // adds a ninth, nearly empty column of tiles.
  const double full = seconds_per_flop(h100, gemm(256 * 132, 1024, 4096, DType::bf16));
  const double spill = seconds_per_flop(h100, gemm(256 * 132, 1025, 4096, DType::bf16));
  CHECK(spill > 1.05 * full);
}

TEST_CASE("GEMM efficiency is dtype-aware: fp8's per-tile cost is more K-steps than bf16's", "[devices][gemm]") {
  const GpuSpec& h100 = catalogue().gpu("h100-sxm");
  REQUIRE(*h100.compute.gemm.k_overhead.find(DType::fp8) > *h100.compute.gemm.k_overhead.find(DType::bf16));
  // So fp8 gains less over bf16 at short K than at long K.
  const auto speedup = [&h100](std::int64_t k) {
    return gemm_efficiency(h100, DType::fp8, 8192, 8192, k, 1) * h100.peak(DType::fp8).flops_per_s /
           (gemm_efficiency(h100, DType::bf16, 8192, 8192, k, 1) * h100.peak(DType::bf16).flops_per_s);
  };
  CHECK(speedup(512) < 0.85 * speedup(16384));
}

namespace attention_kernels_test_detail {

// The MLPerf LoRA shape: one sequence of 8192, causal, 64 heads of 128.
ComputeWork lora_attention(DType dtype, bool backward) {
  ComputeWork w = attention(FusedAttention::cudnn, 8192, 128, true, backward);
  w.dtype = dtype;
  w.batch = 64;
  const double s = 8192.0, d = 128.0;
  w.flops = (backward ? 2.5 : 1.0) * 0.5 * 4.0 * 64.0 * s * s * d;
  w.memory_bytes = (backward ? 8.0 : 4.0) * 64.0 * s * d * bytes_per_element(dtype);
  return w;
}

double tflops_of(const char* gpu, const ComputeWork& w) { return w.flops / ps_to_seconds(time_of(gpu, w)) / 1e12; }

}  // namespace attention_kernels_test_detail

using attention_kernels_test_detail::lora_attention;
using attention_kernels_test_detail::tflops_of;

TEST_CASE("cuDNN's fp8 attention has its own curve: faster than bf16's on a B200, slower backward on an H200",
          "[devices][attention][fp8]") {
  // cudnn-frontend's figures at 8k: B200 (cuDNN 9.13) fp8 1502 / 1255 TFLOP/s forward / backward against
  // bf16 1384 / 995; H200 (9.19) fp8 backward 430 against bf16 541.
  CHECK(tflops_of("b200", lora_attention(DType::fp8, false)) >
        1.05 * tflops_of("b200", lora_attention(DType::bf16, false)));
  CHECK(tflops_of("b200", lora_attention(DType::fp8, true)) >
        1.15 * tflops_of("b200", lora_attention(DType::bf16, true)));
  CHECK(tflops_of("h200", lora_attention(DType::fp8, true)) <
        0.95 * tflops_of("h200", lora_attention(DType::bf16, true)));
  CHECK(tflops_of("h200", lora_attention(DType::fp8, false)) >
        1.3 * tflops_of("h200", lora_attention(DType::bf16, false)));
}

TEST_CASE("Blackwell prices cuDNN attention from its fits, Blackwell Ultra from its own", "[devices][attention]") {
  const GpuSpec& b200 = catalogue().gpu("b200");
  ComputeWork fwd = lora_attention(DType::bf16, false);
  fwd.attention_kernel = FusedAttention::flash2;  // the generic curve, H100's FlashAttention-2 carried over
  const double generic = attention_efficiency(b200, fwd);
  fwd.attention_kernel = FusedAttention::cudnn;
  CHECK(attention_efficiency(b200, fwd) > 1.5 * generic);  // measured 1384 TFLOP/s against ~760
  // GB200 and GB300 are the B200 and B300 dies: the same curves.
  CHECK(attention_efficiency(catalogue().gpu("gb200"), fwd) == attention_efficiency(b200, fwd));
  // Same bf16 peak, faster attention: B300's doubled exponent throughput.
  CHECK(attention_efficiency(catalogue().gpu("b300"), fwd) > 1.15 * attention_efficiency(b200, fwd));
  CHECK(attention_efficiency(catalogue().gpu("gb300"), fwd) == attention_efficiency(catalogue().gpu("b300"), fwd));
}

namespace attention_fill_detail {

// SDPA as a small GPT calls it: `batch_heads` (batch x heads) of 1024 tokens,
// head dim 64, causal, FLOPs by FlashAttention's convention, at the clock a
// training step's kernels are priced at (transformer_ops.cpp: sustained).
ComputeWork small_gpt_attention(std::int64_t batch_heads, bool backward) {
  ComputeWork w = attention(FusedAttention::cudnn, 1024, 64, true, backward);
  w.sustained = true;
  const double scale = static_cast<double>(batch_heads) / static_cast<double>(w.batch);
  w.batch = batch_heads;
  w.flops *= scale;
  w.memory_bytes *= scale;
  return w;
}

}  // namespace attention_fill_detail

TEST_CASE("an attention kernel with fewer thread blocks than SMs takes as long as a full wave",
          "[devices][attention]") {
  using attention_fill_detail::small_gpt_attention;
  const GpuSpec& h200 = catalogue().gpu("h200");
  for (bool backward : {false, true}) {
    INFO((backward ? "backward" : "forward"));
    // 2 and 16 heads of 1024 tokens are 16 and 128 blocks of 128 rows on 132
    // SMs: one wave either way, so the same time (8x the FLOPs).
    const TimePs two = estimate_compute(h200, small_gpt_attention(2, backward)).time;
    CHECK(two == estimate_compute(h200, small_gpt_attention(16, backward)).time);
    // Past a wave, time follows the work again.
    const TimePs many = estimate_compute(h200, small_gpt_attention(256, backward)).time;
    CHECK(static_cast<double>(many) > 10.0 * static_cast<double>(two));
  }
  // A decode kernel (8 query rows per KV head, FlashDecoding splits the keys)
  // is not counted in blocks of query rows.
  ComputeWork decode = small_gpt_attention(8, false);
  decode.m = 8;
  CHECK(attention_efficiency(h200, decode) > 0.2);
}

// Out of sample: this project's H200 profile of a small GPT's eager step
// (models/devices/measured/nvidia_h200_small_models_2026-11-28.json, the
// runs' top kernels), cuDNN's fused kernels per call at 1024 tokens, head
// dim 64, causal. Nothing was fitted to them. Each simulated time is priced
// as the step prices it and includes the catalogue's 2 us launch; the backward also covers the two small
// kernels cuDNN's backward runs beside the main one, so it is held to the
// measured main kernel from above only loosely.
TEST_CASE("small GPT attention kernels on the H200 are priced near the profiled ones", "[devices][attention]") {
  using attention_fill_detail::small_gpt_attention;
  const GpuSpec& h200 = catalogue().gpu("h200");
  struct Profiled {
    std::int64_t batch_heads;
    double forward_us;   // 0: not among the run's top kernels
    double backward_us;  // the main backward kernel
  };
  const Profiled profiled[] = {{2, 12.14, 29.0},  {4, 12.23, 29.33},  {8, 12.29, 29.73},
                               {16, 13.0, 31.24}, {32, 21.25, 51.58}, {48, 0.0, 68.18},
                               {64, 0.0, 84.97},  {128, 0.0, 151.17}, {256, 0.0, 301.0}};
  for (const Profiled& p : profiled) {
    INFO("batch x heads " << p.batch_heads);
    const double fwd_us = ps_to_seconds(estimate_compute(h200, small_gpt_attention(p.batch_heads, false)).time) * 1e6;
    const double bwd_us = ps_to_seconds(estimate_compute(h200, small_gpt_attention(p.batch_heads, true)).time) * 1e6;
    std::printf("  batch x heads %3lld: forward %6.1f us (profiled %6.1f), backward %6.1f us (main kernel %6.1f)\n",
                static_cast<long long>(p.batch_heads), fwd_us, p.forward_us, bwd_us, p.backward_us);
    if (p.forward_us > 0.0) CHECK(std::abs(fwd_us / p.forward_us - 1.0) < 0.35);
    CHECK(bwd_us > 0.8 * p.backward_us);
    CHECK(bwd_us < 1.35 * p.backward_us);
  }
}
