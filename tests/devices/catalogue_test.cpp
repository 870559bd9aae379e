// The shipped catalogue loads, every entry names its sources, and the figures
// of the reference part (H100 SXM) are the datasheet's.
#include <catch2/catch.hpp>

#include "models/devices/device_catalogue.hpp"

using namespace simctl;

namespace {
const DeviceCatalogue& shipped_catalogue() {
  static const DeviceCatalogue loaded = DeviceCatalogue::load();
  return loaded;
}
}  // namespace

TEST_CASE("the catalogue holds the required GPUs and host parts", "[devices][catalogue]") {
  for (const char* id : {"h100-sxm", "h200", "a100-sxm-80gb", "gh200", "b200", "v100-sxm2-32gb", "rtx-3090", "rtx-4090",
                         "h100-pcie", "mi300x", "l40s", "gb200", "gb300", "b300", "mi325x", "mi355x"}) {
    CHECK(shipped_catalogue().find_gpu(id) != nullptr);
  }
  for (const char* id : {"xeon-platinum-8480plus", "epyc-9654", "grace"})
    CHECK(shipped_catalogue().find_cpu(id) != nullptr);
  for (const char* id : {"ddr4-3200", "ddr5-4800", "lpddr5x"}) CHECK(shipped_catalogue().find_memory(id) != nullptr);
  CHECK(shipped_catalogue().nic_ids().size() >= 3);
  CHECK(shipped_catalogue().storage_ids().size() >= 4);
}

TEST_CASE("every GPU has a source for each group of figures and sane values", "[devices][catalogue]") {
  for (const auto& id : shipped_catalogue().gpu_ids()) {
    const GpuSpec& gpu = shipped_catalogue().gpu(id);
    INFO(id);
    for (const char* group : {"peak_dense", "memory", "interconnect", "power", "compute_model"}) {
      INFO(group);
      REQUIRE(gpu.sources.count(group) == 1);
      CHECK(gpu.sources.at(group).size() > 10);
    }
    CHECK(gpu.supports(DType::fp32));
    CHECK(gpu.memory_capacity > 8 * kGiB);
    CHECK(gpu.memory_bandwidth.bytes_per_s > 500e9);
    CHECK(gpu.tdp_watts > 100);
    CHECK(gpu.compute.sm_count > 0);
    CHECK(gpu.launch_overhead > 0);
    // A tensor-core dtype is faster than the vector fp32 rate wherever present.
    for (DType d : {DType::bf16, DType::fp16, DType::fp8}) {
      if (gpu.supports(d)) CHECK(gpu.peak(d).flops_per_s > gpu.peak(DType::fp32).flops_per_s);
    }
  }
}

TEST_CASE("every CPU and memory and NIC and storage entry has a source and positive rates", "[devices][catalogue]") {
  for (const auto& id : shipped_catalogue().cpu_ids()) {
    const CpuSpec& cpu = shipped_catalogue().cpu(id);
    CHECK_FALSE(cpu.source.empty());
    CHECK(cpu.memory_bandwidth.bytes_per_s > 0);
    CHECK(shipped_catalogue().find_memory(cpu.memory_kind) != nullptr);  // refers to a real memory entry
    // A memory hierarchy, where given, gets slower to reach and to stream
    // from at each level down, and every level says where it comes from.
    for (std::size_t i = 0; i < cpu.hierarchy.size(); ++i) {
      CHECK_FALSE(cpu.hierarchy[i].source.empty());
      if (i == 0) continue;
      CHECK(cpu.hierarchy[i].latency > cpu.hierarchy[i - 1].latency);
      CHECK(cpu.hierarchy[i].bandwidth < cpu.hierarchy[i - 1].bandwidth);
    }
  }
  REQUIRE(shipped_catalogue().cpu("xeon-platinum-8480plus").level("dram") != nullptr);
  CHECK(shipped_catalogue().cpu("xeon-platinum-8480plus").level("l2")->size == 2 * 1024 * 1024);
  for (const auto& id : shipped_catalogue().memory_ids()) {
    const MemorySpec& memory = shipped_catalogue().memory(id);
    CHECK_FALSE(memory.source.empty());
    // The stated channel bandwidth is the transfer rate times the width.
    CHECK(memory.channel_bandwidth.bytes_per_s ==
          Approx(memory.transfer_rate_mts * 1e6 * memory.channel_width_bits / 8).epsilon(0.02));
  }
  for (const auto& id : shipped_catalogue().nic_ids()) CHECK_FALSE(shipped_catalogue().nic(id).source.empty());
  for (const auto& id : shipped_catalogue().storage_ids()) {
    const StorageSpec& storage = shipped_catalogue().storage(id);
    CHECK_FALSE(storage.source.empty());
    CHECK(storage.read_latency > 0);
  }
}

TEST_CASE("CPU memory bandwidth equals channels x per-channel rate where channels are given", "[devices][catalogue]") {
  for (const auto& id : shipped_catalogue().cpu_ids()) {
    const CpuSpec& cpu = shipped_catalogue().cpu(id);
    if (cpu.memory_channels == 0) continue;
    const MemorySpec& memory = shipped_catalogue().memory(cpu.memory_kind);
    CHECK(cpu.memory_bandwidth.bytes_per_s == Approx(cpu.memory_channels * memory.channel_bandwidth.bytes_per_s));
  }
}

TEST_CASE("H100 SXM figures are the datasheet's", "[devices][catalogue]") {
  const GpuSpec& h100 = shipped_catalogue().gpu("h100-sxm");
  CHECK(h100.peak(DType::bf16).tflop_per_s() == Approx(989.4).epsilon(0.001));
  CHECK(h100.peak(DType::fp8).tflop_per_s() == Approx(1978.9).epsilon(0.001));
  CHECK(h100.memory_bandwidth.bytes_per_s == Approx(3.35e12));
  CHECK(h100.memory_capacity == 80 * kGiB);
  CHECK(h100.scale_up_link == "nvlink4");
  CHECK(h100.scale_up_bandwidth.gb_per_s() == Approx(450));
  CHECK(h100.host_interface == "pcie_gen5_x16");
  CHECK(h100.tdp_watts == Approx(700));
}

TEST_CASE("GH200's Hopper part has 96 GB at 4 TB/s behind NVLink-C2C", "[devices][catalogue]") {
  const GpuSpec& gh200 = shipped_catalogue().gpu("gh200");
  CHECK(gh200.memory_capacity == 96'000'000'000);
  CHECK(gh200.memory_bandwidth.bytes_per_s == Approx(4e12));
  CHECK(gh200.host_interface == "nvlink_c2c");
}

TEST_CASE("unsupported dtypes are refused with the part's formats", "[devices][catalogue]") {
  const GpuSpec& a100 = shipped_catalogue().gpu("a100-sxm-80gb");
  CHECK_FALSE(a100.supports(DType::fp8));
  CHECK_THROWS_WITH(a100.peak(DType::fp8), Catch::Contains("no fp8") && Catch::Contains("bf16"));
  CHECK_FALSE(shipped_catalogue().gpu("v100-sxm2-32gb").supports(DType::bf16));
}

TEST_CASE("lookups: find returns null and get throws listing valid ids", "[devices][catalogue]") {
  CHECK(shipped_catalogue().find_gpu("h100") == nullptr);
  CHECK_THROWS_AS(shipped_catalogue().gpu("h100"), std::out_of_range);
  CHECK_THROWS_WITH(shipped_catalogue().gpu("h100"), Catch::Contains("h100-sxm") && Catch::Contains("a100-sxm-80gb"));
  CHECK_THROWS_WITH(shipped_catalogue().nic("cx7"), Catch::Contains("connectx-7-ndr"));
  CHECK_THROWS_AS(shipped_catalogue().storage("tape"), std::out_of_range);
}

TEST_CASE("ids are listed sorted whatever the file order", "[devices][catalogue]") {
  auto ids = shipped_catalogue().gpu_ids();
  CHECK(std::is_sorted(ids.begin(), ids.end()));
}
