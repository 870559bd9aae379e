// Routing without a whole tree per part (route_search.hpp, destination_costs.hpp)
// must answer exactly what whole trees answer: the same costs, the same
// first-declared route, the same nearest part, the same ECMP choices.
#include "sim/topology/route_search.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "sim/topology/destination_costs.hpp"
#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

EndpointId add(System& s, PartKind kind, const std::string& name, int node) {
  Part p;
  p.kind = kind;
  p.name = name;
  p.node = node;
  return s.add_part(p);
}

LinkSpec pcie() { return LinkSpec{LinkKind::pcie_gen5_x16, Bandwidth::gigabytes_per_s(64), 100, 1.0}; }

// Whole-graph costs from the parts destinations' nodes lead out to, built on demand.
struct OutsideTrees {
  const RouteGraph& graph;
  std::vector<std::vector<std::int32_t>> trees;
  explicit OutsideTrees(const RouteGraph& g) : graph(g), trees(g.size()) {}
  DestinationCosts::OutsideTree lookup() {
    return [this](EndpointId root) -> const std::vector<std::int32_t>& {
      if (trees[root].empty()) trees[root] = route_costs(graph, root);
      return trees[root];
    };
  }
};

// The route the whole tree from `from` gives: its cables walked back from `to`.
std::vector<LinkId> tree_route(const System& s, const RouteTree& tree, EndpointId from, EndpointId to) {
  std::vector<LinkId> links;
  for (EndpointId v = to; v != from;) {
    const Cable& cable = s.cable(tree.via[v]);
    const EndpointId prev = cable.a == v ? cable.b : cable.a;
    links.insert(links.begin(), link_leaving(cable, prev));
    v = prev;
  }
  return links;
}

// Every root (or every `stride`-th) against its whole tree: a search asked
// one part at a time, in an order that makes it stop and resume, gives each
// part's cost and cable; a destination's assembled costs give every cost;
// nearest() gives the cheapest part of each kind.
void check_against_whole_trees(const System& s, std::size_t stride) {
  const RouteGraph graph(s.graph());
  OutsideTrees outside(graph);
  const auto outside_tree = outside.lookup();
  RouteSearch search(graph);
  RouteSearch inside(graph);
  std::size_t compared = 0;
  for (EndpointId root = 0; root < s.num_parts(); root += static_cast<EndpointId>(stride)) {
    const RouteTree whole = build_route_tree(s.graph(), root);
    search.restart(root);
    for (EndpointId k = 0; k < s.num_parts(); ++k) {
      const EndpointId v = (k * 7919) % s.num_parts();  // near and far parts interleaved
      REQUIRE(search.cost(v) == whole.cost[v]);
      REQUIRE(search.via(v) == whole.via[v]);
    }
    const auto costs = graph.node[root] == kNoNode ? DestinationCosts(route_costs(graph, root))
                                                   : DestinationCosts(graph, root, outside_tree, inside);
    for (EndpointId v = 0; v < s.num_parts(); ++v) REQUIRE(costs.cost(v) == whole.cost[v]);
    for (PartKind kind : {PartKind::gpu, PartKind::cpu_socket, PartKind::dram, PartKind::nic, PartKind::nvswitch,
                          PartKind::pcie_switch, PartKind::network_switch, PartKind::storage}) {
      std::optional<EndpointId> best;
      for (EndpointId v = 0; v < s.num_parts(); ++v) {
        if (v == root || s.part(v).kind != kind || whole.cost[v] == RouteTree::kUnreachable) continue;
        if (!best || whole.cost[v] < whole.cost[*best]) best = v;
      }
      search.restart(root);
      REQUIRE(search.nearest(kind) == best);
    }
    ++compared;
  }
  CHECK(compared > 0);
}

}  // namespace

TEST_CASE("searches that stop early and assembled destination costs match whole trees on shipped systems",
          "[topology][routing]") {
  for (const char* path :
       {"configs/systems/dgx_h100.yaml", "configs/systems/dgx_a100.yaml", "configs/systems/gh200.yaml",
        "configs/systems/rtx4090_x6_workstation.yaml", "configs/systems/h100_pcie_x2_nvlink.yaml",
        "configs/systems/dgx_h100_x4_ndr.yaml", "configs/systems/gh200_x4_ndr.yaml",
        "configs/systems/mixed_h100_a100_ndr.yaml", "configs/systems/dgx_a100_x5_hdr.yaml"}) {
    INFO(path);
    check_against_whole_trees(test::system_from_file(path), 1);
  }
  INFO("configs/systems/dgx_h100_x128_ndr.yaml");
  check_against_whole_trees(test::system_from_file("configs/systems/dgx_h100_x128_ndr.yaml"), 97);
}

TEST_CASE("a destination's costs count routes that leave its node and come back, and CPU penalties",
          "[topology][routing]") {
  // Inside node 0, gpu0 reaches gpu1 only through the CPU (cost 5 with its
  // penalty); outside it, through the switch (cost 4). Node 1 hangs off the switch.
  System s("detour");
  const auto g0 = add(s, PartKind::gpu, "n0.gpu0", 0);
  const auto g1 = add(s, PartKind::gpu, "n0.gpu1", 0);
  const auto p0 = add(s, PartKind::pcie_switch, "n0.pcie0", 0);
  const auto p1 = add(s, PartKind::pcie_switch, "n0.pcie1", 0);
  const auto cpu = add(s, PartKind::cpu_socket, "n0.cpu", 0);
  const auto sw = add(s, PartKind::network_switch, "sw", kNoNode);
  const auto g2 = add(s, PartKind::gpu, "n1.gpu0", 1);
  const auto p2 = add(s, PartKind::pcie_switch, "n1.pcie0", 1);
  s.add_cable(g0, p0, pcie());
  s.add_cable(g1, p1, pcie());
  s.add_cable(p0, cpu, pcie());
  s.add_cable(p1, cpu, pcie());
  s.add_cable(p0, sw, pcie());
  s.add_cable(p1, sw, pcie());
  s.add_cable(g2, p2, pcie());
  s.add_cable(p2, sw, pcie());

  const RouteGraph graph(s.graph());
  OutsideTrees outside(graph);
  const auto outside_tree = outside.lookup();
  RouteSearch inside(graph);
  const DestinationCosts to_g1(graph, g1, outside_tree, inside);
  CHECK(to_g1.cost(g0) == 4);   // out over the switch and back, not 5 through the CPU
  CHECK(to_g1.cost(cpu) == 2);  // the CPU is an end here: no penalty
  CHECK(to_g1.cost(g2) == 4);
  const DestinationCosts to_g2(graph, g2, outside_tree, inside);
  CHECK(to_g2.cost(g0) == 4);
  CHECK(to_g2.cost(cpu) == 4);
  check_against_whole_trees(s, 1);
  CHECK(s.route(g0, g1).links.size() == 4);
  CHECK(s.next_hops(p0, g1).size() == 1);  // the switch only: the CPU route costs more
}

TEST_CASE("routes and ECMP choices from the cache are the whole trees' on a fat tree", "[topology][routing]") {
  const System s = test::dgx_h100_x4_ndr_routed("ecmp");
  const auto& gpus = s.gpus();
  for (std::size_t i = 0; i < gpus.size(); i += 3) {
    const RouteTree from = build_route_tree(s.graph(), gpus[i]);
    for (std::size_t j = 0; j < gpus.size(); j += 5) {
      if (i == j) continue;
      REQUIRE(s.route(gpus[i], gpus[j]).links == tree_route(s, from, gpus[i], gpus[j]));
      // ECMP: every hop is one the destination's whole tree allows.
      const RouteTree to = build_route_tree(s.graph(), gpus[j]);
      for (std::uint64_t key = 0; key < 4; ++key) {
        const Path& path = s.route(gpus[i], gpus[j], key);
        for (LinkId l : path.links) {
          REQUIRE(to.cost[s.link_source(l)] == to.cost[s.link_target(l)] + 1);
        }
      }
    }
  }
}

// route_flow remembers a pair's path only when no choice on the way depended
// on the flow key; asked in any order, every (pair, key) must get the path a
// cache that never saw another flow gives.
TEST_CASE("a pair's path is reused across flow keys only where no key decides it", "[topology][routing]") {
  // ECMP across the spines: the key decides cross-rail pairs. Static tables
  // (x128): no key decides anything between DGX nodes, every pair is reused.
  for (const auto& [file, ecmp] : {std::pair{"", true}, std::pair{"configs/systems/dgx_h100_x128_ndr.yaml", false}}) {
    INFO(file);
    const System s = ecmp ? test::dgx_h100_x4_ndr_routed("ecmp") : test::system_from_file(file);
    const auto& gpus = s.gpus();
    // Same node, same rail in another node, another rail in another node.
    const std::vector<std::pair<EndpointId, EndpointId>> pairs{
        {gpus[0], gpus[1]}, {gpus[0], gpus[8]}, {gpus[0], gpus[9]}, {gpus[3], gpus[30]}};
    std::size_t keyed_pairs = 0;
    for (const auto& [from, to] : pairs) {
      std::vector<std::vector<LinkId>> seen;
      for (std::uint64_t key = 0; key < 16; ++key) {
        const System fresh = s;  // a copy's route cache starts empty
        const Path& cached = s.route(from, to, key);
        REQUIRE(cached.links == fresh.route(from, to, key).links);
        if (std::find(seen.begin(), seen.end(), cached.links) == seen.end()) seen.push_back(cached.links);
      }
      keyed_pairs += seen.size() > 1 ? 1 : 0;
    }
    // Under ECMP some pair's path depends on the key, so reuse was tried
    // where it must not happen.
    CHECK((keyed_pairs > 0) == ecmp);
  }
}
