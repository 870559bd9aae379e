// The single-node systems under configs/systems/: each loads, has the GPUs
// its datasheet says, and routes GPU traffic over the links that machine has.
#include <catch2/catch.hpp>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

EndpointId endpoint_id(const System& s, const std::string& name) {
  auto found = s.find(name);
  REQUIRE(found);
  return *found;
}

// The part names a route passes through, ends included.
std::vector<std::string> hops(const System& s, const Path& p) {
  std::vector<std::string> out;
  if (p.links.empty()) return out;
  out.push_back(s.part(s.link_source(p.links.front())).name);
  for (LinkId l : p.links) out.push_back(s.part(s.link_target(l)).name);
  return out;
}

}  // namespace

TEST_CASE("DGX A100: GPU pairs share a PCIe switch with two NICs", "[topology][shipped]") {
  const System s = test::system_from_file("configs/systems/dgx_a100.yaml");
  REQUIRE(s.gpus().size() == 8);
  CHECK(s.part(s.gpus()[0]).model == "a100-sxm-80gb");
  CHECK(s.parts_of_kind(PartKind::pcie_switch).size() == 4);
  const Path& nv = s.route(endpoint_id(s, "node0.gpu0"), endpoint_id(s, "node0.gpu7"));
  CHECK(hops(s, nv) == std::vector<std::string>{"node0.gpu0", "node0.nvswitch", "node0.gpu7"});
  CHECK(s.link_spec(nv.links[0]).kind == LinkKind::nvlink3);
  // gpu2 and gpu3 sit on pcie_switch1, with nic2 and nic3.
  for (const char* gpu : {"node0.gpu2", "node0.gpu3"}) {
    const Path& p = s.route(endpoint_id(s, gpu), endpoint_id(s, "node0.nic3"));
    CHECK(hops(s, p) == std::vector<std::string>{gpu, "node0.pcie_switch1", "node0.nic3"});
  }
  CHECK(s.part(*s.nearest(endpoint_id(s, "node0.gpu5"), PartKind::dram)).name == "node0.dram1");
}

TEST_CASE("GH200: the GPU reaches LPDDR5X and its NIC through Grace over NVLink-C2C", "[topology][shipped]") {
  const System s = test::system_from_file("configs/systems/gh200.yaml");
  REQUIRE(s.gpus().size() == 1);
  const Path& h2d = s.route(endpoint_id(s, "node0.lpddr"), endpoint_id(s, "node0.gpu"));
  CHECK(hops(s, h2d) == std::vector<std::string>{"node0.lpddr", "node0.grace", "node0.gpu"});
  CHECK(s.link_spec(h2d.links[1]).kind == LinkKind::nvlink_c2c);
  CHECK(s.link_spec(h2d.links[1]).bandwidth.gb_per_s() == Approx(450));  // 900 GB/s both ways
  const Path& rdma = s.route(endpoint_id(s, "node0.gpu"), endpoint_id(s, "node0.nic"));
  CHECK(hops(s, rdma) == std::vector<std::string>{"node0.gpu", "node0.grace", "node0.nic"});
}

TEST_CASE("RTX 4090 workstation: six GPUs with every GPU pair through the root complex", "[topology][shipped]") {
  const System s = test::system_from_file("configs/systems/rtx4090_x6_workstation.yaml");
  REQUIRE(s.gpus().size() == 6);
  CHECK(s.parts_of_kind(PartKind::nvswitch).empty());
  for (EndpointId a : s.gpus()) {
    for (EndpointId b : s.gpus()) {
      if (a == b) continue;
      const Path& p = s.route(a, b);
      REQUIRE(p.links.size() == 2);
      CHECK(s.part(s.link_target(p.links[0])).kind == PartKind::cpu_socket);
      CHECK(s.link_spec(p.links[0]).kind == LinkKind::pcie_gen4_x16);
    }
  }
}

TEST_CASE("2x H100 PCIe: GPU to GPU over the NVLink bridge and not PCIe", "[topology][shipped]") {
  const System s = test::system_from_file("configs/systems/h100_pcie_x2_nvlink.yaml");
  REQUIRE(s.gpus().size() == 2);
  const Path& p = s.route(s.gpus()[0], s.gpus()[1]);
  REQUIRE(p.links.size() == 1);
  CHECK(s.link_spec(p.links[0]).kind == LinkKind::nvlink4);
  CHECK(s.link_spec(p.links[0]).bandwidth.gb_per_s() == Approx(300));
  CHECK(s.part(*s.nearest(s.gpus()[1], PartKind::nic)).name == "node0.nic");
}

TEST_CASE("DGX-1 V100: a hybrid cube-mesh of NVLink2, six links per GPU, as nvidia-smi topo shows",
          "[topology][shipped]") {
  const System s = test::system_from_file("configs/systems/dgx1_v100.yaml");
  REQUIRE(s.gpus().size() == 8);
  CHECK(s.parts_of_kind(PartKind::nvswitch).empty());
  // Bonded links per pair (NV1 / NV2), Oneflow-Inc/DLPerf's nvidia-smi topo -m.
  const int bonded[8][8] = {{0, 1, 1, 2, 2, 0, 0, 0}, {1, 0, 2, 1, 0, 2, 0, 0}, {1, 2, 0, 2, 0, 0, 1, 0},
                            {2, 1, 2, 0, 0, 0, 0, 1}, {2, 0, 0, 0, 0, 1, 1, 2}, {0, 2, 0, 0, 1, 0, 2, 1},
                            {0, 0, 1, 0, 1, 2, 0, 2}, {0, 0, 0, 1, 2, 1, 2, 0}};
  for (int a = 0; a < 8; ++a) {
    double per_gpu = 0.0;
    for (int b = 0; b < 8; ++b) {
      if (a == b) continue;
      const Path& p = s.route(s.gpus()[static_cast<std::size_t>(a)], s.gpus()[static_cast<std::size_t>(b)]);
      INFO("gpu" << a << " -> gpu" << b);
      REQUIRE(!p.links.empty());
      if (bonded[a][b] == 0) {
        // No cable: through another GPU's NVLinks, never a one-hop link.
        CHECK(p.links.size() > 1);
        continue;
      }
      REQUIRE(p.links.size() == 1);
      CHECK(s.link_spec(p.links[0]).kind == LinkKind::nvlink2);
      CHECK(s.link_spec(p.links[0]).bandwidth.gb_per_s() == Approx(25.0 * bonded[a][b]));
      per_gpu += s.link_spec(p.links[0]).bandwidth.gb_per_s();
    }
    CHECK(per_gpu == Approx(150));  // six NVLink2 links of 25 GB/s per direction (V100 datasheet)
  }
  // gpu2 and gpu3 share pcie_switch1 with nic1.
  for (const char* gpu : {"node0.gpu2", "node0.gpu3"}) {
    CHECK(s.part(*s.nearest(endpoint_id(s, gpu), PartKind::nic)).name == "node0.nic1");
  }
}

TEST_CASE("the other socket's memory is reached over the socket link and never preferred", "[topology][shipped]") {
  for (const char* file : {"configs/systems/dgx_h100.yaml", "configs/systems/dgx_a100.yaml"}) {
    INFO(file);
    const System s = test::system_from_file(file);
    const Path& remote = s.route(endpoint_id(s, "node0.gpu0"), endpoint_id(s, "node0.dram1"));
    const auto names = hops(s, remote);
    REQUIRE(names.size() == 5);  // gpu pcie_switch cpu0 cpu1 dram1
    CHECK(names[2] == "node0.cpu0");
    CHECK(names[3] == "node0.cpu1");
    const LinkKind socket_link = s.link_spec(remote.links[2]).kind;
    CHECK((socket_link == LinkKind::upi || socket_link == LinkKind::xgmi));
    for (EndpointId gpu : s.gpus()) {
      const int own = s.part(gpu).index < 4 ? 0 : 1;
      CHECK(s.part(*s.nearest(gpu, PartKind::dram)).name == "node0.dram" + std::to_string(own));
    }
  }
}

// The MI300X platform's xGMI: every GPU one hop from every other, 7 links each.
TEST_CASE("the MI300X platform is an xGMI full mesh", "[topology][mesh]") {
  const System s = test::system_from_file(std::string(SIMCTL_SOURCE_DIR) + "/configs/systems/mi300x_x8.yaml");
  REQUIRE(s.gpus().size() == 8);
  for (EndpointId a : s.gpus()) {
    for (EndpointId b : s.gpus()) {
      if (a == b) continue;
      const Path& path = s.route(a, b);
      REQUIRE(path.links.size() == 1);
      CHECK(s.link_spec(path.links[0]).kind == LinkKind::xgmi);
      CHECK(s.link_spec(path.links[0]).bandwidth.gb_per_s() == Approx(64));
    }
  }
}
