// CPUs on a roofline: a cpus.yaml entry with peak_dense and compute_model is
// priced by the same compute model as a GPU, with its DDR bandwidth as the
// memory roof; a half-given entry is refused at its field.
#include "models/devices/roofline_device.hpp"

#include <catch2/catch.hpp>

#include "models/devices/compute_model.hpp"
#include "tests/devices/catalogue_error_of.hpp"

using namespace simctl;

namespace {

const std::string kCpu = R"(cpus:
  test-cpu:
    name: Test CPU
    cores: 8
    memory_kind: ddr4-3200
    memory_channels: 2
    memory_bandwidth: 51.2 GB/s
    pcie_lanes: 16
    pcie_generation: 4
    tdp_watts: 65
    source: test datasheet
    peak_dense: {fp32: 1 TFLOP/s, source: test datasheet}
    compute_model:
      sm_count: 8
      launch_overhead: 5 us
      memory_efficiency: 0.5
      vector_efficiency: 0.8
      gemm:
        max_efficiency: {fp32: 0.8}
        k_overhead: 0
        tiles: [{m: 6, n: 16, relative_efficiency: 1.0}]
      attention: {max_efficiency: {fp32: 0.5}, head_dim_overhead: 0, kv_length_overhead: 0}
      source: test fit
)";

std::string roofline_error_of(const std::string& yaml) { return testing::catalogue_error_of(yaml); }

}  // namespace

TEST_CASE("a CPU with compute figures is a roofline device, bf16 runs at its fp32 rate", "[devices][roofline]") {
  const auto catalogue = DeviceCatalogue::from_yaml(kCpu, "cpu.yaml");
  const GpuSpec cpu = roofline_device(catalogue, "test-cpu");
  CHECK(cpu.peak(DType::bf16).flops_per_s == Approx(1e12));
  CHECK(sustained_memory_bandwidth(cpu) == Approx(25.6e9));
  // A large GEMM is compute-bound, a vector add memory-bound, as on a GPU.
  ComputeWork gemm;
  gemm.kind = ComputeKind::gemm;
  gemm.m = gemm.n = gemm.k = 4096;
  gemm.flops = 2.0 * 4096 * 4096 * 4096;
  gemm.memory_bytes = 3 * 2.0 * 4096 * 4096;
  CHECK(estimate_compute(cpu, gemm).bound == KernelBound::compute);
  ComputeWork add;
  add.kind = ComputeKind::elementwise;
  add.flops = 1e8;
  add.memory_bytes = 6e8;
  CHECK(estimate_compute(cpu, add).bound == KernelBound::memory);
  CHECK(roofline_device_ids(catalogue) == std::vector<std::string>{"test-cpu"});
}

TEST_CASE("unknown roofline devices and half-given CPU figures are refused", "[devices][roofline]") {
  const auto catalogue = DeviceCatalogue::from_yaml(kCpu, "cpu.yaml");
  CHECK_THROWS_WITH(roofline_device(catalogue, "nope"), Catch::Contains("valid: test-cpu"));
  std::string no_peak = kCpu;
  no_peak.erase(no_peak.find("    peak_dense"), no_peak.find("    compute_model") - no_peak.find("    peak_dense"));
  CHECK_THAT(roofline_error_of(no_peak), Catch::Contains("bad.yaml:") && Catch::Contains("needs peak_dense beside it"));
  // same_die_as is resolved among GPUs only; on a CPU it would be ignored.
  std::string on_die = kCpu;
  on_die.insert(on_die.find("      source: test fit"), "      same_die_as: test-cpu\n");
  CHECK_THAT(roofline_error_of(on_die),
             Catch::Contains("cpus.test-cpu.compute_model.same_die_as") && Catch::Contains("is for GPUs"));
}

TEST_CASE("the shipped DDR4 and DDR5 EPYCs carry compute figures", "[devices][roofline]") {
  const auto catalogue = DeviceCatalogue::load();
  for (const char* id : {"epyc-7742", "epyc-9654"}) {
    const GpuSpec cpu = roofline_device(catalogue, id);
    INFO(id);
    CHECK(cpu.peak(DType::fp32).flops_per_s > 1e12);
    CHECK(cpu.memory_kind.rfind("ddr", 0) == 0);
  }
}
