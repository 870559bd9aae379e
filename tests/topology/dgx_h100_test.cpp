#include <catch2/catch.hpp>

#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {
const System& dgx() {
  static const System loaded = test::system_from_file("configs/systems/dgx_h100.yaml");  // read-only
  return loaded;
}
EndpointId id(const char* name) {
  auto found = dgx().find(name);
  REQUIRE(found);
  return *found;
}
}  // namespace

TEST_CASE("DGX H100 loads with its 8 GPUs and host parts", "[topology][dgx_h100]") {
  const System& s = dgx();
  REQUIRE(s.gpus().size() == 8);
  CHECK(s.num_nodes() == 1);
  for (std::size_t r = 0; r < 8; ++r) {
    CHECK(s.part(s.gpus()[r]).name == "node0.gpu" + std::to_string(r));
    CHECK(s.part(s.gpus()[r]).model == "h100-sxm");
  }
  CHECK(s.parts_of_kind(PartKind::cpu_socket).size() == 2);
  CHECK(s.parts_of_kind(PartKind::nic).size() == 8);
  CHECK(s.parts_of_kind(PartKind::nvswitch).size() == 1);
  Bytes dram = 0;
  for (EndpointId d : s.parts_of_kind(PartKind::dram)) dram += s.part(d).capacity_bytes;
  CHECK(dram == 2048 * kGiB);
}

TEST_CASE("DGX H100 GPU to GPU goes gpu -> nvswitch -> gpu at NVLink4 rate", "[topology][dgx_h100]") {
  const System& s = dgx();
  for (EndpointId a : s.gpus()) {
    for (EndpointId b : s.gpus()) {
      if (a == b) continue;
      const Path& p = s.route(a, b);
      REQUIRE(p.links.size() == 2);
      CHECK(s.link_target(p.links[0]) == id("node0.nvswitch"));
      CHECK(s.link_spec(p.links[0]).kind == LinkKind::nvlink4);
      CHECK(s.link_spec(p.links[0]).bandwidth.gb_per_s() == Approx(450));
    }
  }
  const auto caps = s.link_capacities();
  const Path& p = s.route(id("node0.gpu0"), id("node0.gpu7"));
  const LinkSpec& nvlink = s.link_spec(p.links[0]);
  CHECK(caps[p.links[0]].bytes_per_s == Approx(nvlink.bandwidth.bytes_per_s * nvlink.efficiency));
  CHECK(caps.size() == s.num_links());
}

TEST_CASE("DGX H100 GPU to its NIC goes through its PCIe switch", "[topology][dgx_h100]") {
  const System& s = dgx();
  for (int r = 0; r < 8; ++r) {
    const auto gpu = id(("node0.gpu" + std::to_string(r)).c_str());
    const auto nic = s.nearest(gpu, PartKind::nic);
    REQUIRE(nic);
    CHECK(s.part(*nic).name == "node0.nic" + std::to_string(r));
    const Path& p = s.route(gpu, *nic);
    REQUIRE(p.links.size() == 2);
    CHECK(s.part(s.link_target(p.links[0])).name == "node0.pcie_switch" + std::to_string(r));
    CHECK(s.link_spec(p.links[0]).kind == LinkKind::pcie_gen5_x16);
  }
}

TEST_CASE("DGX H100 host memory is the GPU's own socket's", "[topology][dgx_h100]") {
  const System& s = dgx();
  CHECK(s.part(*s.nearest(id("node0.gpu0"), PartKind::dram)).name == "node0.dram0");
  CHECK(s.part(*s.nearest(id("node0.gpu7"), PartKind::dram)).name == "node0.dram1");
  const Path& h2d = s.route(id("node0.dram1"), id("node0.gpu5"));
  REQUIRE(h2d.links.size() == 3);  // dram -> cpu -> pcie_switch -> gpu
  CHECK(s.link_spec(h2d.links[0]).kind == LinkKind::memory_bus);
  CHECK(s.route(id("node0.nvme0"), id("node0.dram0")).links.size() == 2);
}

TEST_CASE("routes stay valid after a System is copied or moved", "[topology][routing]") {
  // Routes are cached while loading (connectivity checks); the copy must not
  // reuse descriptors that point into the original graph's storage.
  System original = test::system_from_file("configs/systems/dgx_h100.yaml");
  const EndpointId a = original.gpus()[0], b = original.gpus()[5];
  const Path expected = original.route(a, b);
  System copied = original;
  System moved = std::move(original);
  for (const System* s : {&copied, &moved}) {
    const Path& p = s->route(a, b);
    CHECK(p.links == expected.links);
    for (LinkId l : p.links) CHECK(l < s->num_links());
  }
}
