// A GPU's traffic to another node leaves and arrives by the GPUs' own NICs
// (own_nic.hpp): on a DGX A100, where two GPUs share a PCIe switch with two
// NICs, GPU i uses NIC i whatever the flow key, so no NIC carries two GPUs'
// flows while its neighbour idles.
#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

std::vector<std::string> link_names(const System& s, const Path& p) {
  std::vector<std::string> out;
  for (LinkId l : p.links) out.push_back(s.link_name(l));
  return out;
}

bool has(const std::vector<std::string>& names, const std::string& link) {
  return std::find(names.begin(), names.end(), link) != names.end();
}

}  // namespace

TEST_CASE("DGX A100 GPUs cross the fabric by their own NICs, for every flow key", "[topology][routing][own_nic]") {
  const System s = test::system_from_file("configs/systems/dgx_a100_x5_hdr.yaml");
  const std::vector<EndpointId> gpus = s.gpus();
  REQUIRE(gpus.size() == 40);
  for (int i = 0; i < 8; ++i) {
    for (int j : {i, (i + 3) % 8}) {  // the same rail, and another rail through the spines
      const EndpointId from = gpus[static_cast<std::size_t>(i)];
      const EndpointId to = gpus[static_cast<std::size_t>(8 + j)];
      const std::string out = "node0.pcie_switch" + std::to_string(i / 2) + " -> node0.nic" + std::to_string(i);
      const std::string in = "node1.nic" + std::to_string(j) + " -> node1.pcie_switch" + std::to_string(j / 2);
      INFO("gpu " << i << " -> node1 gpu " << j);
      for (std::uint64_t key = 0; key < 16; ++key) {
        const std::vector<std::string> names = link_names(s, s.route(from, to, key));
        CHECK(has(names, out));
        CHECK(has(names, in));
        CHECK(names.size() == (i == j ? 6u : 8u));  // no detour through a node
      }
      const std::vector<std::string> plain = link_names(s, s.route(from, to));
      CHECK(has(plain, out));
      CHECK(has(plain, in));
    }
  }
}

TEST_CASE("a GPU with a NIC of its own keeps the route it had", "[topology][routing][own_nic]") {
  // DGX H100: one NIC per GPU, so own-NIC routing changes nothing.
  const System s = test::system_from_file("configs/systems/dgx_h100_x4_ndr.yaml");
  const std::vector<EndpointId> gpus = s.gpus();
  for (std::uint64_t key = 0; key < 8; ++key) {
    const std::vector<std::string> names = link_names(s, s.route(gpus[5], gpus[29], key));
    CHECK(has(names, "node0.pcie_switch5 -> node0.nic5"));
    CHECK(has(names, "node3.nic5 -> node3.pcie_switch5"));
  }
}

TEST_CASE("simctl route counts no choice where a GPU's own NIC decides", "[topology][routing][own_nic]") {
  const System s = test::system_from_file("configs/systems/dgx_a100_x5_hdr.yaml");
  const std::vector<EndpointId> gpus = s.gpus();
  const EndpointId from = gpus[1], to = gpus[10];  // node0.gpu1 -> node1.gpu2: another rail, over a spine
  const EndpointId pcie = *s.find("node0.pcie_switch0"), leaf = *s.find("leaf1");
  CHECK(s.next_hops(pcie, to).size() == 2);  // least cost alone: either NIC of the switch
  CHECK(s.route_choices(from, pcie, to) == 1);
  CHECK(s.route_choices(from, leaf, to) == s.next_hops(leaf, to).size());  // the spines
  CHECK(s.route_choices(from, leaf, to) > 1);
  // Between parts that are not two nodes' GPUs, the count is next_hops'.
  const EndpointId nic = *s.find("node0.nic1");
  CHECK(s.route_choices(nic, pcie, to) == s.next_hops(pcie, to).size());
}

TEST_CASE("where the fabric cannot join two NICs' leaves, a route crosses the node as before",
          "[topology][routing][own_nic]") {
  // Rails without spines: rail 0's leaf and rail 1's leaf are not joined, so
  // node0.gpu0 reaches node1.gpu1 only through one node's CPU to its other
  // rail's NIC (plain least cost picks which).
  System s("two rails, no spine");
  const LinkSpec pcie{LinkKind::pcie_gen5_x16, Bandwidth::gigabytes_per_s(64), 250, 1.0};
  const LinkSpec ndr{LinkKind::infiniband_ndr, Bandwidth::gigabytes_per_s(50), 300, 1.0};
  auto add = [&](PartKind kind, const std::string& name, int node, int index) {
    Part p;
    p.kind = kind;
    p.name = name;
    p.node = node;
    p.index = index;
    return s.add_part(p);
  };
  const EndpointId leaf0 = add(PartKind::network_switch, "leaf0", kNoNode, 0);
  const EndpointId leaf1 = add(PartKind::network_switch, "leaf1", kNoNode, 1);
  std::vector<EndpointId> gpus;
  for (int n = 0; n < 2; ++n) {
    const std::string node = "node" + std::to_string(n) + ".";
    const EndpointId cpu = add(PartKind::cpu_socket, node + "cpu", n, 0);
    for (int i = 0; i < 2; ++i) {
      const EndpointId gpu = add(PartKind::gpu, node + "gpu" + std::to_string(i), n, i);
      const EndpointId sw = add(PartKind::pcie_switch, node + "pcie_switch" + std::to_string(i), n, i);
      const EndpointId nic = add(PartKind::nic, node + "nic" + std::to_string(i), n, i);
      s.add_cable(gpu, sw, pcie);
      s.add_cable(sw, nic, pcie);
      s.add_cable(sw, cpu, pcie);
      s.add_cable(nic, i == 0 ? leaf0 : leaf1, ndr);
      gpus.push_back(gpu);
    }
  }
  const EndpointId from = gpus[0], to = gpus[3];  // node0.gpu0 -> node1.gpu1
  auto crosses_a_cpu = [&](const Path& p) {
    const std::vector<std::string> names = link_names(s, p);
    return std::any_of(names.begin(), names.end(),
                       [](const std::string& n) { return n.find(".cpu ->") != std::string::npos; });
  };
  for (std::uint64_t key = 0; key < 4; ++key) CHECK(crosses_a_cpu(s.route(from, to, key)));
  CHECK(crosses_a_cpu(s.route(from, to)));
  const EndpointId switch0 = *s.find("node0.pcie_switch0");
  CHECK(s.route_choices(from, switch0, to) == s.next_hops(switch0, to).size());
  // The same rail still goes by the GPUs' own NICs.
  CHECK(has(link_names(s, s.route(gpus[1], gpus[3], 0)), "node0.nic1 -> leaf1"));
}
