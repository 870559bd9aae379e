// Decode's GEMMs on a lent H200 (models/devices/measured/
// nvidia_h200_stream_gemv_2026-11-26.json, scripts/measure_stream_gemv.py):
// a GEMM of a few rows reads its weight once for few FLOPs, and the compute
// model prices it as the weight at the catalogue's sustained HBM rate plus
// the launch floor. Nothing was fitted to these points; the sustained rate
// (memory_efficiency) was set from the same file's STREAM kernels, which
// the first test checks.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "models/devices/compute_model.hpp"
#include "models/devices/device_catalogue.hpp"
#include "sim/config/data_root.hpp"
#include "tests/devices/gemm_work.hpp"

using namespace simctl;

namespace {

nlohmann::json measured() {
  std::ifstream in(data_root() + "/models/devices/measured/nvidia_h200_stream_gemv_2026-11-26.json");
  REQUIRE(in.good());
  return nlohmann::json::parse(in);
}

GpuSpec h200() { return DeviceCatalogue::load().gpu("h200"); }

// The H200's 50 MB L2 holds a smaller weight across the graph's 20 back-to-
// back calls, so only weights well past it measure HBM.
constexpr double kPastL2Bytes = 64e6;

}  // namespace

TEST_CASE("H200: the catalogue's sustained HBM rate is the measured STREAM mean", "[devices][gemv]") {
  const nlohmann::json file = measured();
  double sum = 0.0;
  int kernels = 0;
  for (const auto& s : file["stream"]) {
    const std::string name = s["kernel"];
    if (name == "read") continue;  // BabelStream's four: copy, scale (mul), add, triad
    sum += s["tb_per_s"].get<double>() * 1e12;
    ++kernels;
  }
  REQUIRE(kernels == 4);
  CHECK(sustained_memory_bandwidth(h200()) == Approx(sum / kernels).epsilon(0.01));
}

TEST_CASE("H200: decode GEMMs of 1-64 rows stream their weights as priced", "[devices][gemv]") {
  const GpuSpec gpu = h200();
  const nlohmann::json file = measured();
  std::vector<double> errors;
  for (const auto& g : file["gemv"]) {
    const auto m = g["m"].get<std::int64_t>(), n = g["n"].get<std::int64_t>(), k = g["k"].get<std::int64_t>();
    const DType dtype = g["dtype"] == "fp8" ? DType::fp8 : DType::bf16;
    const double weight_bytes = static_cast<double>(n * k) * bytes_per_element(dtype);
    if (m > 64 || weight_bytes < kPastL2Bytes) continue;
    ComputeWork work = testing::gemm_work(std::max<std::int64_t>(m, dtype == DType::fp8 ? 16 : 1), n, k, dtype);
    work.memory_bytes += (2.0 - bytes_per_element(dtype)) * static_cast<double>(work.m * n);  // bf16 out
    const double simulated = ps_to_seconds(estimate_compute(gpu, work).time);
    const double error = simulated / g["s"].get<double>() - 1.0;
    std::printf("  %-4s %-22s m %3lld: measured %7.1f us, simulated %7.1f us, %+5.1f %%\n",
                g["dtype"].get<std::string>().c_str(), g["weight"].get<std::string>().c_str(),
                static_cast<long long>(m), g["s"].get<double>() * 1e6, simulated * 1e6, 100.0 * error);
    errors.push_back(std::abs(error));
  }
  REQUIRE(errors.size() >= 20);
  std::sort(errors.begin(), errors.end());
  const double median = errors[errors.size() / 2];
  std::printf("  decode GEMMs past L2: median |error| %.1f %%, max %.1f %% over %zu points\n", 100.0 * median,
              100.0 * errors.back(), errors.size());
  CHECK(median < 0.06);
  CHECK(errors.back() < 0.15);
}
