#include <catch2/catch.hpp>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;
using simctl::test::system_from_text;

namespace {

// Two 4-GPU boxes joined by one rail-per-NIC fabric and a spine.
const char* kTwoBoxes = R"(
system:
  name: two boxes
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}
        dram: {kind: dram, model: ddr5-4800, capacity: 512 GiB}
        gpu: {kind: gpu, model: h100-sxm, count: 4}
        nvswitch: {kind: nvswitch}
        pcie_switch: {kind: pcie_switch, count: 2}
        nic: {kind: nic, model: connectx-7-ndr, count: 4}
      links:
        - {between: ["gpu[*]", nvswitch], kind: nvlink4}
        - {between: ["gpu[*]", "pcie_switch[*]"], kind: pcie_gen5_x16}
        - {between: ["nic[*]", "pcie_switch[*]"], kind: pcie_gen5_x16}
        - {between: ["pcie_switch[*]", cpu], kind: pcie_gen5_x16, latency: 1 us}
        - {between: [cpu, dram], kind: memory_bus, bandwidth: 200 GB/s}
  nodes:
    - {template: box, count: 2}
  parts:
    rail: {kind: network_switch, count: 4}
    spine: {kind: network_switch}
  links:
    - {between: ["node[*].nic[*]", "rail[*]"], kind: infiniband_ndr, pairing: round_robin}
    - {between: ["rail[*]", spine], kind: infiniband_ndr}
)";

}  // namespace

TEST_CASE("templates with a count expand into numbered nodes and parts", "[topology][config]") {
  const System s = system_from_text(kTwoBoxes);
  CHECK(s.name() == "two boxes");
  CHECK(s.num_nodes() == 2);
  REQUIRE(s.gpus().size() == 8);
  CHECK(s.part(s.gpus()[0]).name == "node0.gpu0");
  CHECK(s.part(s.gpus()[5]).name == "node1.gpu1");  // node-major rank order
  CHECK(s.part(s.gpus()[5]).node == 1);
  CHECK(s.part(s.gpus()[5]).index == 1);
  CHECK(s.part(s.gpus()[5]).model == "h100-sxm");
  CHECK(s.find("node1.nvswitch"));  // a one-part group has no index
  CHECK(s.find("node0.pcie_switch1"));
  CHECK(s.find("rail3"));
  CHECK(s.part(*s.find("spine")).node == kNoNode);
  CHECK(s.part(*s.find("node1.dram")).capacity_bytes == 512 * kGiB);
  // Per node: 4 nvlink + 4 gpu-pcie + 4 nic-pcie + 2 uplinks + 1 memory = 15; fabric: 8 + 4.
  CHECK(s.num_cables() == 2 * 15 + 8 + 4);
  CHECK(s.num_links() == 2 * s.num_cables());
}

TEST_CASE("link figures default to the kind's and can be overridden", "[topology][config]") {
  const System s = system_from_text(kTwoBoxes);
  const auto& defaults = test::link_kinds();
  const Path& gpu_to_gpu = s.route(*s.find("node0.gpu0"), *s.find("node0.gpu1"));
  REQUIRE(gpu_to_gpu.links.size() == 2);
  CHECK(s.link_spec(gpu_to_gpu.links[0]).bandwidth == defaults.defaults(LinkKind::nvlink4).bandwidth);
  CHECK(gpu_to_gpu.latency == 2 * defaults.defaults(LinkKind::nvlink4).latency);

  const Path& to_host = s.route(*s.find("node0.gpu0"), *s.find("node0.dram"));
  REQUIRE(to_host.links.size() == 3);  // gpu -> pcie_switch -> cpu -> dram
  CHECK(s.link_spec(to_host.links[2]).bandwidth.gb_per_s() == Approx(200));
  CHECK(s.link_spec(to_host.links[1]).latency == kPsPerUs);
}

TEST_CASE("block pairing shares switches, round robin builds rails", "[topology][config]") {
  const System s = system_from_text(kTwoBoxes);
  auto one_hop = [&](const char* a, const char* b) { return s.route(*s.find(a), *s.find(b)).links.size() == 1; };
  CHECK(one_hop("node0.gpu1", "node0.pcie_switch0"));
  CHECK(one_hop("node0.gpu2", "node0.pcie_switch1"));
  CHECK(one_hop("node1.nic2", "rail2"));
  CHECK(one_hop("node0.nic3", "rail3"));

  // Same rail across nodes: gpu -> pcie_switch -> nic -> rail -> nic -> pcie_switch -> gpu.
  const Path& same_rail = s.route(*s.find("node0.gpu0"), *s.find("node1.gpu0"));
  REQUIRE(same_rail.links.size() == 6);
  CHECK(s.link_name(same_rail.links[2]) == "node0.nic0 -> rail0");
  CHECK(s.link_name(same_rail.links[3]) == "rail0 -> node1.nic0");
}

TEST_CASE("every GPU pair of a loaded system has a route", "[topology][config]") {
  const System s = system_from_text(kTwoBoxes);
  for (EndpointId a : s.gpus()) {
    for (EndpointId b : s.gpus()) CHECK(s.reachable(a, b));
  }
}
