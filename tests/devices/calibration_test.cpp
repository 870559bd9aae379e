// Calibration against measured hardware (models/devices/measured/
// reference_points.yaml). One test per matched measurement, named by its id and
// tolerance; points marked `matched: false` are printed with their error by the
// table test but not asserted (the YAML says why).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "models/devices/compute_model.hpp"
#include "models/devices/device_catalogue.hpp"
#include "tests/devices/reference_point.hpp"

using namespace simctl;

namespace {

const DeviceCatalogue& calibration_catalogue() {
  static const DeviceCatalogue loaded = DeviceCatalogue::load();
  return loaded;
}

const std::vector<testing::ReferencePoint>& points() {
  static const auto loaded = testing::load_reference_points();
  return loaded;
}

// The benchmark's own figure of merit: FLOP/s, or bytes/s for STREAM.
double simulated_figure(const testing::ReferencePoint& point) {
  const GpuSpec& gpu = calibration_catalogue().gpu(point.gpu);
  ComputeEstimate estimate = estimate_compute(gpu, point.work);
  if (point.backward_work) {  // fwd+bwd FLOPs over the two kernels' time
    const TimePs total = estimate.time + estimate_compute(gpu, *point.backward_work).time;
    return (point.work.flops + point.backward_work->flops) / ps_to_seconds(total);
  }
  if (!point.is_bandwidth) return estimate.achieved_flops_per_s;
  return point.work.memory_bytes / ps_to_seconds(estimate.time);
}

double relative_error(const testing::ReferencePoint& point) {
  return (simulated_figure(point) - point.measured) / point.measured;
}

const testing::ReferencePoint& point(const std::string& id) {
  for (const auto& p : points()) {
    if (p.id == id) return p;
  }
  throw std::out_of_range("no reference point " + id);
}

void check_matches(const std::string& id, double tolerance) {
  const auto& p = point(id);
  REQUIRE(p.matched);
  REQUIRE(p.tolerance == Approx(tolerance));  // the YAML and the test name agree
  INFO(id << ": measured " << p.measured << ", simulated " << simulated_figure(p));
  CHECK(std::abs(relative_error(p)) <= tolerance);
}

}  // namespace

TEST_CASE("calibration table: every matched reference point is within its tolerance", "[devices][calibration]") {
  REQUIRE(points().size() >= 20);
  std::printf("%-36s %10s %10s %8s  (TFLOP/s or TB/s)\n", "reference point", "measured", "simulated", "error");
  for (const auto& p : points()) {
    const double error = relative_error(p);
    std::printf("%-36s %10.2f %10.2f %+7.1f%%%s\n", p.id.c_str(), p.measured / 1e12, simulated_figure(p) / 1e12,
                100.0 * error, p.matched ? "" : "  (not matched)");
    if (p.matched) CHECK(std::abs(error) <= p.tolerance);
  }
}

TEST_CASE("matches D-MAMF-FP8-H100 1402.6 TFLOP/s within 10%", "[devices][calibration]") {
  check_matches("D-MAMF-FP8-H100", 0.10);
}
TEST_CASE("matches D-MAMF-BF16-A100-SXM 271.2 TFLOP/s within 10%", "[devices][calibration]") {
  check_matches("D-MAMF-BF16-A100-SXM", 0.10);
}
TEST_CASE("matches A100 fp16 GEMM 8192 cubed 277.6 TFLOP/s within 15%", "[devices][calibration]") {
  check_matches("D-A100-GEMM-fp16-8192x8192x8192", 0.15);
}
TEST_CASE("matches A100 fp16 GEMM 1024x12288x12288 257.9 TFLOP/s within 15%", "[devices][calibration]") {
  check_matches("D-A100-GEMM-fp16-1024x12288x12288", 0.15);
}
TEST_CASE("matches A100 fp16 GEMM 64x12288x12288 101.7 TFLOP/s and memory-bound within 15%", "[devices][calibration]") {
  check_matches("D-A100-GEMM-fp16-64x12288x12288", 0.15);
}
TEST_CASE("matches A100 fp16 GEMM 8192x1024x1024 185.2 TFLOP/s within 15%", "[devices][calibration]") {
  check_matches("D-A100-GEMM-fp16-8192x1024x1024", 0.15);
}
TEST_CASE("matches A100 cuBLASLt fp16 8192 cubed 253.7 TFLOP/s within 15%", "[devices][calibration]") {
  check_matches("D-A100-cuBLASLt-fp16-8192cubed", 0.15);
}
TEST_CASE("matches A100 cuBLASLt fp16 4096 cubed 228.0 TFLOP/s within 15%", "[devices][calibration]") {
  check_matches("D-A100-cuBLASLt-fp16-4096cubed", 0.15);
}
TEST_CASE("matches A100 cuBLASLt fp16 1024 cubed 119.4 TFLOP/s within 15%", "[devices][calibration]") {
  check_matches("D-A100-cuBLASLt-fp16-1024cubed", 0.15);
}
TEST_CASE("matches BabelStream copy and triad on H100 2.9 and 2.97 TB/s within 10%", "[devices][calibration]") {
  check_matches("B-H100-HBM-BabelStream-copy", 0.10);
  check_matches("B-H100-HBM-BabelStream-triad", 0.10);
}
TEST_CASE("matches BabelStream copy and triad on A100 1.61 and 1.7 TB/s within 10%", "[devices][calibration]") {
  check_matches("B-A100-HBM-BabelStream-copy", 0.10);
  check_matches("B-A100-HBM-BabelStream-triad", 0.10);
}
TEST_CASE("matches FlashAttention-2 fwd+bwd H100 hd128 at 16k 8k and hd64 at 16k within 10%",
          "[devices][calibration]") {
  check_matches("D-FA2-H100-fwdbwd-hd128-16k", 0.10);
  check_matches("D-FA2-H100-fwdbwd-hd128-8k", 0.10);
  check_matches("D-FA2-H100-fwdbwd-hd64-16k", 0.10);
}
TEST_CASE("matches FlashAttention-2 fwd+bwd A100 hd128 at 16k 8k 2k and hd64 at 16k within 10%",
          "[devices][calibration]") {
  check_matches("D-FA2-A100-fwdbwd-hd128-16k", 0.10);
  check_matches("D-FA2-A100-fwdbwd-hd128-8k", 0.10);
  check_matches("D-FA2-A100-fwdbwd-hd128-2k", 0.10);
  check_matches("D-FA2-A100-fwdbwd-hd64-16k", 0.10);
}
TEST_CASE("matches H100 cuBLASLt fp8 8192 cubed 1290.1 TFLOP/s within 15%", "[devices][calibration]") {
  check_matches("D-H100-cuBLASLt-fp8-8192cubed", 0.15);
}
TEST_CASE("matches B200 MAMF bf16 1745 and fp8 3432.5 within 10%", "[devices][calibration]") {
  check_matches("D-MAMF-BF16-B200", 0.10);
  check_matches("D-MAMF-FP8-B200", 0.10);
}
TEST_CASE("matches AMD's MAF bf16 and fp8 on MI300X and MI325X within 3% and 5%", "[devices][calibration]") {
  check_matches("D-MAF-BF16-MI300X", 0.03);
  check_matches("D-MAF-FP8-MI300X", 0.03);
  check_matches("D-MAF-BF16-MI325X", 0.03);
  check_matches("D-MAF-FP8-MI325X", 0.05);
}
TEST_CASE("matches flashinfer's cuDNN NVFP4 GEMM on B200 3840.7 TFLOP/s within 10%", "[devices][calibration]") {
  check_matches("D-FI-NVFP4-B200-1024x7168x4608", 0.10);
}
// vLLM's harness reads bf16 below the model, so its NVFP4 rows are compared
// as a speed-up over the bf16 row of the same M: what fp4 adds over bf16.
TEST_CASE("NVFP4's speed-up over bf16 on B200 is vLLM's within 10% at M 2048 to 16384", "[devices][calibration]") {
  for (const char* m : {"2048", "4096", "8192", "16384"}) {
    const auto& bf16 = point(std::string("D-VLLM-BF16-B200-") + m + "x6144x4096");
    const auto& fp4 = point(std::string("D-VLLM-NVFP4-B200-") + m + "x6144x4096");
    const double measured = fp4.measured / bf16.measured;
    const double simulated = simulated_figure(fp4) / simulated_figure(bf16);
    INFO("M " << m << ": measured speed-up " << measured << ", simulated " << simulated);
    CHECK(std::abs(simulated / measured - 1.0) <= 0.10);
  }
}
// cuBLASLt's MXFP4 GEMM at 8192 cubed (deepseek-ai/DeepGEMM#348), out of
// sample for the fp4 efficiency fitted on vLLM's NVFP4 rows: the same
// block-scaled MMA. (Its 4096x4096x7168 row is reported, not matched: the
// YAML says why.)
TEST_CASE("matches cuBLASLt's MXFP4 GEMM on B200 at 8192 cubed 5239 TFLOP/s within 10%", "[devices][calibration]") {
  check_matches("D-DG-cuBLASLt-MXFP4-B200-8192cubed", 0.10);
}
