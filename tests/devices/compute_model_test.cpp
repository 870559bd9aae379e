// Behaviour of the roofline compute model that must follow from the physics,
// not from per-kind rules: large GEMMs compute-bound, normalisation and
// element-wise ops memory-bound, small or skinny GEMMs less efficient.
#include "models/devices/compute_model.hpp"

#include <catch2/catch.hpp>

#include "models/devices/device_catalogue.hpp"
#include "models/devices/gemm_efficiency.hpp"
#include "tests/devices/gemm_work.hpp"

using namespace simctl;

namespace {

const DeviceCatalogue& model_catalogue() {
  static const DeviceCatalogue loaded = DeviceCatalogue::load();
  return loaded;
}

ComputeWork gemm_op(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype = DType::bf16) {
  return testing::gemm_work(m, n, k, dtype);
}

// LayerNorm over a [tokens, hidden] bf16 tensor: read x, write y (gamma and
// beta are negligible); ~8 FLOPs per element (mean, variance, scale, shift).
ComputeWork layer_norm(double elements) {
  ComputeWork work;
  work.kind = ComputeKind::norm;
  work.dtype = DType::bf16;
  work.flops = 8 * elements;
  work.memory_bytes = 2 * 2 * elements;
  return work;
}

ComputeWork elementwise_add(double elements) {
  ComputeWork work;
  work.kind = ComputeKind::elementwise;
  work.dtype = DType::bf16;
  work.flops = elements;
  work.memory_bytes = 3 * 2 * elements;  // two inputs, one output
  return work;
}

}  // namespace

TEST_CASE("a large bf16 GEMM on H100 is compute-bound near the MAMF rate", "[devices][compute]") {
  const GpuSpec& h100 = model_catalogue().gpu("h100-sxm");
  ComputeEstimate e = estimate_compute(h100, gemm_op(8192, 8192, 8192));
  CHECK_FALSE(e.memory_bound);
  CHECK(e.compute_time_s > 5 * e.memory_time_s);
  CHECK(e.achieved_flops_per_s > 0.7 * h100.peak(DType::bf16).flops_per_s);
  CHECK(e.achieved_flops_per_s < h100.peak(DType::bf16).flops_per_s);
}

TEST_CASE("LayerNorm and element-wise add over a large tensor are memory-bound", "[devices][compute]") {
  const GpuSpec& h100 = model_catalogue().gpu("h100-sxm");
  const double elements = 8192.0 * 8192.0;
  for (const ComputeWork& work : {layer_norm(elements), elementwise_add(elements)}) {
    INFO(to_string(work.kind));
    ComputeEstimate e = estimate_compute(h100, work);
    CHECK(e.memory_bound);
    // Time is the bytes at sustained bandwidth plus the launch overhead.
    CHECK(e.time == seconds_to_ps(work.memory_bytes / sustained_memory_bandwidth(h100)) + h100.launch_overhead);
  }
}

TEST_CASE("a kernel is launch-bound when its launch overhead exceeds both its compute and memory time",
          "[devices][compute]") {
  const GpuSpec& h100 = model_catalogue().gpu("h100-sxm");
  const double launch_s = ps_to_seconds(h100.launch_overhead);
  REQUIRE(launch_s > 0);
  const double bytes_per_element = 3 * 2;  // elementwise_add
  const double floor_elements = launch_s * sustained_memory_bandwidth(h100) / bytes_per_element;
  // A tenth of the elements that fill the launch floor: the launch dominates.
  ComputeEstimate tiny = estimate_compute(h100, elementwise_add(0.1 * floor_elements));
  CHECK(tiny.bound == KernelBound::launch);
  CHECK(tiny.memory_bound);  // the roofline's side is still memory
  // Ten times as many: the memory time exceeds the launch, so memory-bound.
  CHECK(estimate_compute(h100, elementwise_add(10 * floor_elements)).bound == KernelBound::memory);
  CHECK(estimate_compute(h100, gemm_op(8192, 8192, 8192)).bound == KernelBound::compute);
  // An empty kernel is all launch.
  CHECK(estimate_compute(h100, ComputeWork{}).bound == KernelBound::launch);
}

TEST_CASE("a GEMM-like op with the same intensity would be compute-bound: the kind is not the reason",
          "[devices][compute]") {
  // Same bytes as the LayerNorm, but as many FLOPs as a big matmul: the model
  // must call it compute-bound, so memory-boundness comes from the numbers.
  const GpuSpec& h100 = model_catalogue().gpu("h100-sxm");
  ComputeWork heavy = layer_norm(8192.0 * 8192.0);
  heavy.flops *= 1e4;
  CHECK_FALSE(estimate_compute(h100, heavy).memory_bound);
}

TEST_CASE("skinny and small GEMMs get less of the peak than large square ones", "[devices][compute]") {
  const GpuSpec& h100 = model_catalogue().gpu("h100-sxm");
  const double big = gemm_efficiency(h100, DType::bf16, 8192, 8192, 8192, 1);
  CHECK(gemm_efficiency(h100, DType::bf16, 1024, 1024, 1024, 1) < big);
  CHECK(gemm_efficiency(h100, DType::bf16, 8192, 8192, 256, 1) < big);  // short K: per-tile overhead
  // One tile: without a stream-K split (A100's parameters) most SMs idle.
  CHECK(gemm_efficiency(model_catalogue().gpu("a100-sxm-80gb"), DType::fp16, 64, 64, 8192, 1) < 0.1);
  // A batch of small GEMMs fills the GPU again.
  CHECK(gemm_efficiency(h100, DType::bf16, 128, 128, 8192, 256) > 0.5);
  // Without a shape the model falls back to the dtype's best efficiency.
  CHECK(gemm_efficiency(h100, DType::bf16, 0, 0, 0, 1) >= big);
}

TEST_CASE("wave quantisation: one tile more than fills the GPU costs a partial wave", "[devices][compute]") {
  const GpuSpec& a100 = model_catalogue().gpu("a100-sxm-80gb");  // no stream-K tail split in its parameters
  REQUIRE(a100.compute.gemm.tail_split_efficiency == 0.0);
  // 108 SMs, best tile 256x128: 108 tiles is exactly one wave, 109 needs two.
  const double full = gemm_efficiency(a100, DType::fp16, 256 * 108, 128, 8192, 1);
  const double spill = gemm_efficiency(a100, DType::fp16, 256 * 109, 128, 8192, 1);
  CHECK(spill < 0.75 * full);
}

TEST_CASE("a decode-like GEMM m = 1 is memory-bound on every GPU", "[devices][compute]") {
  for (const auto& id : model_catalogue().gpu_ids()) {
    const GpuSpec& gpu = model_catalogue().gpu(id);
    DType dtype = gpu.supports(DType::bf16) ? DType::bf16 : DType::fp16;
    INFO(id);
    CHECK(estimate_compute(gpu, gemm_op(1, 8192, 8192, dtype)).memory_bound);
    CHECK_FALSE(estimate_compute(gpu, gemm_op(8192, 8192, 8192, dtype)).memory_bound);
  }
}

TEST_CASE("fp8 GEMMs are faster than bf16 on H100 and refused on A100", "[devices][compute]") {
  const GpuSpec& h100 = model_catalogue().gpu("h100-sxm");
  CHECK(estimate_compute(h100, gemm_op(8192, 8192, 8192, DType::fp8)).time <
        estimate_compute(h100, gemm_op(8192, 8192, 8192, DType::bf16)).time);
  CHECK_THROWS_WITH(estimate_compute(model_catalogue().gpu("a100-sxm-80gb"), gemm_op(1024, 1024, 1024, DType::fp8)),
                    Catch::Contains("fp8"));
}

TEST_CASE("an empty op costs exactly the launch overhead", "[devices][compute]") {
  const GpuSpec& h100 = model_catalogue().gpu("h100-sxm");
  ComputeWork nothing;
  nothing.kind = ComputeKind::elementwise;
  ComputeEstimate e = estimate_compute(h100, nothing);
  CHECK(e.time == h100.launch_overhead);
  CHECK(e.achieved_flops_per_s == 0.0);
}

TEST_CASE("attention is faster on H100 than A100 and longer sequences are more efficient", "[devices][compute]") {
  ComputeWork attention;
  attention.kind = ComputeKind::attention;
  attention.dtype = DType::bf16;
  attention.m = attention.n = 4096;
  attention.k = 128;
  attention.batch = 32;
  attention.flops = 3.5 * 4 * 32 * 4096.0 * 4096.0 * 128;
  attention.memory_bytes = 12 * 32 * 4096.0 * 128 * 2;
  const auto h100 = estimate_compute(model_catalogue().gpu("h100-sxm"), attention);
  const auto a100 = estimate_compute(model_catalogue().gpu("a100-sxm-80gb"), attention);
  CHECK(h100.time < a100.time);
  CHECK_FALSE(h100.memory_bound);
  const GpuSpec& gpu = model_catalogue().gpu("h100-sxm");
  auto shaped = [&attention](std::int64_t kv_len, std::int64_t head_dim) {
    ComputeWork w = attention;
    w.n = kv_len;
    w.k = head_dim;
    return w;
  };
  CHECK(attention_efficiency(gpu, shaped(512, 128)) < attention_efficiency(gpu, shaped(16384, 128)));
  CHECK(attention_efficiency(gpu, shaped(16384, 64)) < attention_efficiency(gpu, shaped(16384, 128)));
}

TEST_CASE("negative work is refused", "[devices][compute]") {
  ComputeWork bad;
  bad.flops = -1;
  CHECK_THROWS_AS(estimate_compute(model_catalogue().gpu("h100-sxm"), bad), std::invalid_argument);
}
