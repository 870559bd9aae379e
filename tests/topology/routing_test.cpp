#include <catch2/catch.hpp>
#include <stdexcept>

#include "sim/topology/system.hpp"

using namespace simctl;

namespace {

LinkSpec spec(double gb_per_s, TimePs latency, double efficiency = 1.0) {
  return LinkSpec{LinkKind::nvlink4, Bandwidth::gigabytes_per_s(gb_per_s), latency, efficiency};
}

EndpointId add(System& s, PartKind kind, const std::string& name) {
  Part p;
  p.kind = kind;
  p.name = name;
  return s.add_part(p);
}

}  // namespace

TEST_CASE("a route through a switch uses both cables in the direction of travel", "[topology][routing]") {
  System s("star");
  const auto g0 = add(s, PartKind::gpu, "gpu0");
  const auto g1 = add(s, PartKind::gpu, "gpu1");
  const auto sw = add(s, PartKind::nvswitch, "sw");
  s.add_cable(g0, sw, spec(450, 100));  // cable 0: links 0 (gpu0->sw), 1 (sw->gpu0)
  s.add_cable(sw, g1, spec(450, 200));  // cable 1: links 2 (sw->gpu1), 3 (gpu1->sw)

  const Path& forward = s.route(g0, g1);
  CHECK(forward.links == std::vector<LinkId>{0, 2});
  CHECK(forward.latency == 300);
  CHECK(s.route(g1, g0).links == std::vector<LinkId>{3, 1});
  CHECK(s.link_name(0) == "gpu0 -> sw");
  CHECK(s.link_name(3) == "gpu1 -> sw");
  CHECK(s.route(g0, g0).links.empty());
}

TEST_CASE("link capacities are the effective rate of each direction", "[topology][routing]") {
  System s("pair");
  const auto a = add(s, PartKind::gpu, "a");
  const auto b = add(s, PartKind::gpu, "b");
  s.add_cable(a, b, spec(100, 0, 0.8));
  REQUIRE(s.num_links() == 2);
  const auto caps = s.link_capacities();
  REQUIRE(caps.size() == 2);
  CHECK(caps[0].gb_per_s() == Approx(80));
  CHECK(caps[1].gb_per_s() == Approx(80));
  CHECK(s.link_spec(1).bandwidth.gb_per_s() == Approx(100));
}

TEST_CASE("GPUs, DRAM and storage never forward traffic", "[topology][routing]") {
  System s("chain");
  const auto g0 = add(s, PartKind::gpu, "gpu0");
  const auto g1 = add(s, PartKind::gpu, "gpu1");
  const auto g2 = add(s, PartKind::gpu, "gpu2");
  s.add_cable(g0, g1, spec(100, 1));
  s.add_cable(g1, g2, spec(100, 1));
  CHECK(s.route(g0, g1).links.size() == 1);  // a direct cable is fine
  CHECK_FALSE(s.reachable(g0, g2));
  CHECK_THROWS_WITH(s.route(g0, g2), Catch::Contains("no route from 'gpu0' to 'gpu2'"));

  SECTION("a longer route through switches wins over a shorter one through a GPU") {
    const auto swa = add(s, PartKind::pcie_switch, "swa");
    const auto swb = add(s, PartKind::pcie_switch, "swb");
    s.add_cable(g0, swa, spec(10, 1));
    s.add_cable(swa, swb, spec(10, 1));
    s.add_cable(swb, g2, spec(10, 1));
    const Path& p = s.route(g0, g2);
    REQUIRE(p.links.size() == 3);
    CHECK(s.link_name(p.links[1]) == "swa -> swb");
  }
  SECTION("memory and storage are endpoints only") {
    const auto cpu0 = add(s, PartKind::cpu_socket, "cpu0");
    const auto cpu1 = add(s, PartKind::cpu_socket, "cpu1");
    const auto dram = add(s, PartKind::dram, "dram");
    const auto disk = add(s, PartKind::storage, "disk");
    s.add_cable(g0, dram, spec(10, 1));
    s.add_cable(dram, g2, spec(10, 1));
    s.add_cable(cpu0, disk, spec(10, 1));
    s.add_cable(disk, cpu1, spec(10, 1));
    CHECK(s.route(g0, dram).links.size() == 1);
    CHECK_FALSE(s.reachable(g0, g2));
    CHECK(s.route(cpu0, disk).links.size() == 1);
    CHECK_FALSE(s.reachable(cpu0, cpu1));
  }
}

TEST_CASE("equally short routes tie-break on declaration order, repeatably", "[topology][routing]") {
  System s("diamond");
  const auto g0 = add(s, PartKind::gpu, "gpu0");
  const auto g1 = add(s, PartKind::gpu, "gpu1");
  const auto swa = add(s, PartKind::nvswitch, "swa");
  const auto swb = add(s, PartKind::nvswitch, "swb");
  const auto net = add(s, PartKind::network_switch, "net");
  s.add_cable(g0, swb, spec(1, 1));  // gpu0's first cable: the search reaches swb first
  s.add_cable(g0, swa, spec(1, 1));
  s.add_cable(swa, g1, spec(1, 1));  // gpu1's first cable: its last hop
  s.add_cable(swb, g1, spec(1, 1));
  s.add_cable(swa, net, spec(1, 1));
  s.add_cable(swb, net, spec(1, 1));

  const Path& to_switch = s.route(g0, net);
  REQUIRE(to_switch.links.size() == 2);
  CHECK(s.link_name(to_switch.links[0]) == "gpu0 -> swb");

  const Path& to_gpu = s.route(g0, g1);
  REQUIRE(to_gpu.links.size() == 2);
  CHECK(s.link_name(to_gpu.links[1]) == "swa -> gpu1");
  CHECK(&s.route(g0, g1) == &to_gpu);  // cached: the same object every time

  System copy = s;  // routes are values: a copy answers on its own
  CHECK(copy.route(g0, g1).links == to_gpu.links);
}

TEST_CASE("adding parts or cables drops routes computed before", "[topology][routing]") {
  System s("grow");
  const auto g0 = add(s, PartKind::gpu, "gpu0");
  const auto g1 = add(s, PartKind::gpu, "gpu1");
  CHECK_FALSE(s.reachable(g0, g1));
  const auto sw = add(s, PartKind::nvswitch, "sw");
  s.add_cable(g0, sw, spec(1, 1));
  s.add_cable(sw, g1, spec(1, 1));
  CHECK(s.route(g0, g1).links.size() == 2);
}

TEST_CASE("nearest finds the closest part of a kind", "[topology][routing]") {
  System s("host");
  const auto gpu = add(s, PartKind::gpu, "gpu");
  const auto sw = add(s, PartKind::pcie_switch, "sw");
  const auto cpu0 = add(s, PartKind::cpu_socket, "cpu0");
  const auto cpu1 = add(s, PartKind::cpu_socket, "cpu1");
  const auto dram0 = add(s, PartKind::dram, "dram0");
  const auto dram1 = add(s, PartKind::dram, "dram1");
  s.add_cable(gpu, sw, spec(64, 1));
  s.add_cable(sw, cpu1, spec(64, 1));
  s.add_cable(cpu0, cpu1, spec(64, 1));
  s.add_cable(cpu0, dram0, spec(300, 1));
  s.add_cable(cpu1, dram1, spec(300, 1));
  CHECK(s.nearest(gpu, PartKind::dram) == dram1);
  CHECK(s.nearest(gpu, PartKind::cpu_socket) == cpu1);
  CHECK_FALSE(s.nearest(gpu, PartKind::nic));
}

TEST_CASE("the graph refuses duplicate names, self-cables and parallel cables", "[topology][routing]") {
  System s("bad");
  const auto a = add(s, PartKind::gpu, "a");
  const auto b = add(s, PartKind::nvswitch, "b");
  CHECK_THROWS_WITH(add(s, PartKind::gpu, "a"), Catch::Contains("'a' is used twice"));
  CHECK_THROWS_WITH(s.add_cable(a, a, spec(1, 1)), Catch::Contains("to itself"));
  s.add_cable(a, b, spec(1, 1));
  CHECK_THROWS_WITH(s.add_cable(b, a, spec(1, 1)), Catch::Contains("combined bandwidth"));
  CHECK_THROWS_AS(s.part(99), std::out_of_range);
  CHECK(s.find("b") == b);
  CHECK_FALSE(s.find("c"));
}
