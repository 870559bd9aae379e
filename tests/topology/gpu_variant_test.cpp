// GPU variants declared in a system file (models/devices/gpu_variant.hpp):
// the catalogue part with figures of its own, priced by the same models.
#include "models/devices/gpu_variant.hpp"

#include <catch2/catch.hpp>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

// Meta's Grand Teton H100s, on which torchtitan's published runs ran: 96 GB
// of HBM2e at 500 W.
const std::string kMetaH100 = R"(
system:
  name: grand teton
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}
        gpu:
          kind: gpu
          model: h100-sxm
          count: 8
          variant: {name: h100-96gb-500w, memory_capacity: 96 GB, memory_bandwidth: 3.35 TB/s, power_limit: 500 W}
        nvswitch: {kind: nvswitch}
        nic: {kind: nic, model: connectx-7-ndr}
      links:
        - {between: ["gpu[*]", nvswitch], kind: nvlink4}
        - {between: ["gpu[*]", cpu], kind: pcie_gen5_x16}
        - {between: [nic, cpu], kind: pcie_gen5_x16}
  nodes:
    - {template: box, count: 2}
  fabric: {kind: fat_tree, tiers: 1, radix: 64, link: infiniband_ndr, nics: nic}
)";

}  // namespace

TEST_CASE("a variant's parts carry its name and the system its figures", "[topology][variant]") {
  const System system = test::system_from_text(kMetaH100, "meta.yaml");
  CHECK(system.part(system.gpus()[0]).model == "h100-96gb-500w");
  CHECK(system.part(system.gpus()[15]).model == "h100-96gb-500w");
  CHECK(system.part(system.gpus()[0]).architecture == "hopper");
  REQUIRE(system.gpu_variants().size() == 1);  // two nodes of one template: declared once
  const GpuSpec& gpu = system.gpu_variants()[0];
  CHECK(gpu.variant_of == "h100-sxm");
  CHECK(gpu.memory_capacity == 96'000'000'000);
  CHECK(gpu.tdp_watts == 500.0);
  // The H100's power model at 500 W: tensor kernels settle 4.6 % slower than at 700 W.
  CHECK(gpu.compute.sustained_tensor_slowdown == Approx(1.198).epsilon(0.002));
  CHECK(gpu.peak(DType::bf16) == test::catalogue().gpu("h100-sxm").peak(DType::bf16));
  CHECK_THAT(gpu.sources.at("memory"), Catch::StartsWith("variant of h100-sxm: memory_capacity 96 GB, "
                                                         "memory_bandwidth 3.35 TB/s, power_limit 500 W"));
}

TEST_CASE("clock_scale scales the peaks and eases the settled clock", "[devices][variant]") {
  const GpuSpec& b200 = test::catalogue().gpu("b200");
  GpuVariant slow{"b200-slow", std::nullopt, std::nullopt, std::nullopt, 0.9, "here"};
  const GpuSpec derived = derive_gpu_variant(b200, slow);
  CHECK(derived.peak(DType::fp8).flops_per_s == Approx(0.9 * b200.peak(DType::fp8).flops_per_s));
  CHECK(derived.compute.sustained_tensor_slowdown < b200.compute.sustained_tensor_slowdown);
  CHECK(derived.compute.sustained_tensor_slowdown > 1.0);
  CHECK(derived.tdp_watts == b200.tdp_watts);
}

TEST_CASE("two groups may share a variant declared alike", "[topology][variant]") {
  std::string text = kMetaH100;
  const std::string spare =
      "        spare: {kind: gpu, model: h100-sxm, variant: {name: h100-96gb-500w, memory_capacity: 96 GB, "
      "memory_bandwidth: 3.35 TB/s, power_limit: 500 W}}\n";
  text.insert(text.find("        nvswitch:"), spare);
  text.insert(text.find("        - {between: [nic, cpu]"),
              "        - {between: [spare, nvswitch], kind: nvlink4}\n        - {between: [spare, cpu], kind: "
              "pcie_gen5_x16}\n");
  const System system = test::system_from_text(text, "meta2.yaml");
  CHECK(system.gpu_variants().size() == 1);
  CHECK(system.gpus().size() == 18);
}
