// Malformed catalogue input is refused with a ConfigError naming the field.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <functional>

#include "models/devices/device_catalogue.hpp"
#include "tests/devices/catalogue_error_of.hpp"

using namespace simctl;

namespace {

// A complete, valid GPU entry; tests break one field of it at a time.
const std::string kGoodGpu = R"(gpus:
  test-gpu:
    name: Test GPU
    architecture: test
    peak_dense: {fp32: 10 TFLOP/s, bf16: 100 TFLOP/s, source: test datasheet}
    memory: {kind: hbm3, capacity: 16 GiB, bandwidth: 1 TB/s, source: test datasheet}
    interconnect: {host_interface: pcie_gen4_x16, scale_up_link: none, source: test datasheet}
    power: {tdp_watts: 300, source: test datasheet}
    compute_model:
      sm_count: 10
      launch_overhead: 2 us
      memory_efficiency: 0.9
      vector_efficiency: 0.8
      gemm:
        max_efficiency: {fp32: 0.9, bf16: 0.8}
        k_overhead: 128
        tiles: [{m: 128, n: 128, relative_efficiency: 1.0}]
      attention: {max_efficiency: {bf16: 0.5}, head_dim_overhead: 20, kv_length_overhead: 100}
      source: test fit
)";

std::string replaced(const std::string& from, const std::string& to) {
  std::string text = kGoodGpu;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

std::string error_of(const std::string& yaml) { return testing::catalogue_error_of(yaml); }

}  // namespace

TEST_CASE("the valid test entry loads", "[devices][errors]") {
  auto catalogue = DeviceCatalogue::from_yaml(kGoodGpu, "good.yaml");
  CHECK(catalogue.gpu("test-gpu").peak(DType::bf16).tflop_per_s() == Approx(100));
  CHECK(catalogue.gpu("test-gpu").scale_up_bandwidth.bytes_per_s == 0);
}

TEST_CASE("an unknown dtype key names the field and the valid dtypes", "[devices][errors]") {
  std::string msg = error_of(replaced("bf16: 100 TFLOP/s", "bf17: 100 TFLOP/s"));
  CHECK_THAT(msg, Catch::Contains("bad.yaml:5:"));
  CHECK_THAT(msg, Catch::Contains("gpus.test-gpu.peak_dense.bf17"));
  CHECK_THAT(msg, Catch::Contains("fp8"));
}

TEST_CASE("zero or negative bandwidth is refused at its field", "[devices][errors]") {
  CHECK_THAT(error_of(replaced("bandwidth: 1 TB/s", "bandwidth: 0 TB/s")),
             Catch::Contains("gpus.test-gpu.memory.bandwidth") && Catch::Contains("positive"));
  CHECK_THAT(error_of(replaced("bandwidth: 1 TB/s", "bandwidth: -1 TB/s")),
             Catch::Contains("gpus.test-gpu.memory.bandwidth"));
}

TEST_CASE("a missing source is refused naming the block", "[devices][errors]") {
  CHECK_THAT(error_of(replaced(", source: test datasheet}\n    memory", "}\n    memory")),
             Catch::Contains("gpus.test-gpu.peak_dense") && Catch::Contains("'source'"));
  CHECK_THAT(
      error_of(replaced("power: {tdp_watts: 300, source: test datasheet}", "power: {tdp_watts: 300, source: ' '}")),
      Catch::Contains("gpus.test-gpu.power.source"));
}

TEST_CASE("efficiencies outside the unit interval and missing GEMM dtypes are refused", "[devices][errors]") {
  CHECK_THAT(error_of(replaced("memory_efficiency: 0.9", "memory_efficiency: 1.2")),
             Catch::Contains("compute_model.memory_efficiency") && Catch::Contains("fraction"));
  CHECK_THAT(error_of(replaced("max_efficiency: {fp32: 0.9, bf16: 0.8}", "max_efficiency: {fp32: 0.9}")),
             Catch::Contains("compute_model.gemm.max_efficiency") && Catch::Contains("bf16"));
}

TEST_CASE("a sustained tensor slowdown below 1 is refused at its field", "[devices][errors]") {
  CHECK_THAT(
      error_of(replaced("vector_efficiency: 0.8", "vector_efficiency: 0.8\n      sustained_tensor_slowdown: 0.9")),
      Catch::Contains("compute_model.sustained_tensor_slowdown") && Catch::Contains("at least 1"));
  auto ok = DeviceCatalogue::from_yaml(
      replaced("vector_efficiency: 0.8", "vector_efficiency: 0.8\n      sustained_tensor_slowdown: 1.2"), "ok.yaml");
  CHECK(ok.gpu("test-gpu").compute.sustained_tensor_slowdown == Approx(1.2));
  CHECK(DeviceCatalogue::from_yaml(kGoodGpu, "good.yaml").gpu("test-gpu").compute.sustained_tensor_slowdown == 1.0);
}

TEST_CASE("a power model prices the sustained clock, and a bad one is refused at its field", "[devices][errors]") {
  const std::string model =
      "vector_efficiency: 0.8\n      power_model: {idle_fraction: 0.1, settled_clock_at_tdp: 0.7, "
      "slowdown_at_tdp: 1.1, source: test}";
  const auto ok = DeviceCatalogue::from_yaml(replaced("vector_efficiency: 0.8", model), "ok.yaml");
  CHECK(ok.gpu("test-gpu").compute.sustained_tensor_slowdown == Approx(1.1));
  const auto with = [&](const std::string& from, const std::string& to) {
    std::string text = model;
    text.replace(text.find(from), from.size(), to);
    return error_of(replaced("vector_efficiency: 0.8", text));
  };
  CHECK_THAT(with("slowdown_at_tdp: 1.1", "slowdown_at_tdp: 0.9"),
             Catch::Contains("power_model.slowdown_at_tdp") && Catch::Contains("at least 1"));
  CHECK_THAT(with("settled_clock_at_tdp: 0.7", "settled_clock_at_tdp: 1.7"),
             Catch::Contains("power_model.settled_clock_at_tdp") && Catch::Contains("fraction"));
  CHECK_THAT(with("idle_fraction: 0.1", "idle_fraction: 1"), Catch::Contains("power_model.idle_fraction"));
  CHECK_THAT(with("source: test}", "source: test}\n      sustained_tensor_slowdown: 1.2"),
             Catch::Contains("sustained_tensor_slowdown") && Catch::Contains("power_model"));
}

TEST_CASE("unknown fields and sections and duplicate ids are refused", "[devices][errors]") {
  CHECK_THAT(error_of(replaced("name: Test GPU", "name: Test GPU\n    nmae: typo")),
             Catch::Contains("gpus.test-gpu.nmae") && Catch::Contains("valid fields"));
  CHECK_THAT(error_of("tpus: {}\n"), Catch::Contains("tpus"));
  const std::string nic =
      "nics:\n  Bad_Id: {name: x, protocol: ethernet, ports: 1, port_bandwidth: 1 Gb/s, "
      "host_interface: pcie, source: s}\n";
  CHECK_THAT(error_of(nic), Catch::Contains("lower-case"));
}

TEST_CASE("host-part entries validate their fields", "[devices][errors]") {
  const std::string storage =
      "storage:\n  disk: {name: d, kind: floppy, read_bandwidth: 1 MB/s, "
      "write_bandwidth: 1 MB/s, read_latency: 1 ms, source: s}\n";
  CHECK_THAT(error_of(storage), Catch::Contains("storage.disk.kind") && Catch::Contains("nvme"));
  const std::string nic =
      "nics:\n  n: {name: x, protocol: ethernet, ports: 1, port_bandwidth: -1 Gb/s, "
      "host_interface: pcie, source: s}\n";
  CHECK_THAT(error_of(nic), Catch::Contains("nics.n.port_bandwidth"));
  // A fabric cable faster than all the NIC's ports together.
  const std::string fast =
      "nics:\n  n: {name: x, protocol: ethernet, ports: 3, port_bandwidth: 200 Gb/s, fabric_bandwidth: 800 Gb/s, "
      "host_interface: pcie, source: s}\n";
  CHECK_THAT(error_of(fast), Catch::Contains("nics.n.fabric_bandwidth") && Catch::Contains("3 ports of 200 Gb/s"));
}

TEST_CASE("ids must be unique across files of one directory", "[devices][errors]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("simctl_devices_dup_" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "a.yaml") << kGoodGpu;
  std::ofstream(dir / "b.yaml") << kGoodGpu;
  std::string msg;
  try {
    DeviceCatalogue::load(dir.string());
  } catch (const ConfigError& e) {
    msg = e.what();
  }
  fs::remove_all(dir);
  CHECK_THAT(msg, Catch::Contains("b.yaml") && Catch::Contains("duplicate id 'test-gpu'"));
}

TEST_CASE("a missing catalogue directory is a ConfigError", "[devices][errors]") {
  CHECK_THROWS_AS(DeviceCatalogue::load("/nonexistent/simctl/catalogue"), ConfigError);
}

namespace {
// kGoodGpu plus a second part on its die, with `die_field` in its compute_model.
std::string with_die_part(const std::string& die_field, const std::string& architecture = "test") {
  std::string die = kGoodGpu;
  const std::string model = "      source: test fit\n";
  die.insert(die.find(model),
             "      power_model: {idle_fraction: 0.1, settled_clock_at_tdp: 0.7, slowdown_at_tdp: 1.1, "
             "source: test}\n");
  std::string part = kGoodGpu.substr(kGoodGpu.find("  test-gpu:"));
  part.replace(0, std::string("  test-gpu:").size(), "  test-gpu-hot:");
  part.replace(part.find("architecture: test"), std::string("architecture: test").size(),
               "architecture: " + architecture);
  part.replace(part.find("tdp_watts: 300"), std::string("tdp_watts: 300").size(), "tdp_watts: 400");
  part.insert(part.find(model), die_field);
  return die + part;
}
}  // namespace

TEST_CASE("same_die_as prices a part from the named die at its own limit", "[devices][errors][power]") {
  const auto catalogue = DeviceCatalogue::from_yaml(with_die_part("      same_die_as: test-gpu\n"), "good.yaml");
  const GpuSpec& hot = catalogue.gpu("test-gpu-hot");
  REQUIRE(hot.compute.power_model);
  CHECK(hot.compute.power_model->die_tdp_watts == 300.0);
  CHECK(hot.compute.sustained_tensor_slowdown < catalogue.gpu("test-gpu").compute.sustained_tensor_slowdown);
}

TEST_CASE("same_die_as is refused where it cannot price the part", "[devices][errors][power]") {
  std::string msg = error_of(with_die_part("      same_die_as: no-such-gpu\n"));
  CHECK_THAT(msg, Catch::Contains("gpus.test-gpu-hot.compute_model.same_die_as"));
  CHECK_THAT(msg, Catch::Contains("names no GPU"));
  msg = error_of(with_die_part("      same_die_as: test-gpu\n", "other"));
  CHECK_THAT(msg, Catch::Contains("one die has one architecture"));
  msg = error_of(with_die_part("      same_die_as: test-gpu-hot\n"));
  CHECK_THAT(msg, Catch::Contains("own power_model"));
  msg = error_of(with_die_part("      same_die_as: test-gpu\n      sustained_tensor_slowdown: 1.1\n"));
  CHECK_THAT(msg, Catch::Contains("follows from same_die_as"));
  // The die must have a power model to share.
  std::string no_model = with_die_part("      same_die_as: test-gpu\n");
  const std::string line =
      "      power_model: {idle_fraction: 0.1, settled_clock_at_tdp: 0.7, slowdown_at_tdp: 1.1, source: test}\n";
  no_model.erase(no_model.find(line), line.size());
  CHECK_THAT(error_of(no_model), Catch::Contains("has no power_model to share"));
}

TEST_CASE("a kernel's fits per format: each format priced by its own, none given twice",
          "[devices][errors][attention]") {
  const std::string curve = "{max_efficiency: {128: 0.5}, seq_overhead: 100, causal_factor: 0.9}";
  const auto with_fits = [&curve](const std::string& second_dtypes) {
    return replaced("kv_length_overhead: 100}",
                    "kv_length_overhead: 100, kernels: {cudnn: [{dtypes: [bf16], forward: " + curve +
                        ", backward: " + curve + ", source: test}, {dtypes: [" + second_dtypes +
                        "], forward: {max_efficiency: {128: 0.25}, seq_overhead: 100, causal_factor: 0.9}, "
                        "backward: " +
                        curve + ", source: test}]}}");
  };
  const auto catalogue = DeviceCatalogue::from_yaml(with_fits("fp8"), "good.yaml");
  const AttentionEfficiencyParams& attention = catalogue.gpu("test-gpu").compute.attention;
  REQUIRE(attention.fit_for(FusedAttention::cudnn, DType::bf16));
  REQUIRE(attention.fit_for(FusedAttention::cudnn, DType::fp8));
  CHECK(attention.fit_for(FusedAttention::cudnn, DType::fp8)->forward.max_efficiency.front().second == Approx(0.25));
  CHECK(attention.fit_for(FusedAttention::cudnn, DType::bf16)->forward.max_efficiency.front().second == Approx(0.5));
  CHECK_FALSE(attention.fit_for(FusedAttention::cudnn, DType::fp16));

  const std::string msg = error_of(with_fits("fp8, bf16"));
  CHECK_THAT(msg, Catch::Contains("dtypes"));
  CHECK_THAT(msg, Catch::Contains("bf16 has a fit above already"));
}
