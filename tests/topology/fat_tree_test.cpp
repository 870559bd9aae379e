// The fat-tree generator and routing over it: the shipped DGX H100 clusters,
// rails, oversubscription, three tiers, mixed nodes.
#include "sim/topology/fat_tree.hpp"

#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <set>

#include "models/network/flow_network.hpp"
#include "sim/core/engine.hpp"
#include "tests/topology/topology_test_support.hpp"

using namespace simctl;

namespace {

const System& cluster(int nodes) {
  static const System x4 = test::system_from_file("configs/systems/dgx_h100_x4_ndr.yaml");  // read-only
  static const System x32 = test::system_from_file("configs/systems/dgx_h100_x32_ndr.yaml");
  static const System x128 = test::system_from_file("configs/systems/dgx_h100_x128_ndr.yaml");
  return nodes == 4 ? x4 : nodes == 32 ? x32 : x128;
}

EndpointId fat_tree_id(const System& s, const std::string& name) {
  auto found = s.find(name);
  REQUIRE(found);
  return *found;
}

std::vector<EndpointId> parts_on(const System& s, const Path& p) {
  std::vector<EndpointId> out{s.link_source(p.links.front())};
  for (LinkId l : p.links) out.push_back(s.link_target(l));
  return out;
}

std::size_t count_group(const System& s, const std::string& group) {
  std::size_t n = 0;
  for (EndpointId v : s.parts_of_kind(PartKind::network_switch)) n += s.part(v).group == group ? 1 : 0;
  return n;
}

// The switches cabled to `v`, by group ("leaf", "spine").
std::vector<EndpointId> neighbours_in(const System& s, EndpointId v, const std::string& group) {
  std::vector<EndpointId> out;
  for (std::uint32_t c = 0; c < s.num_cables(); ++c) {
    const Cable& cable = s.cable(c);
    const EndpointId other = cable.a == v ? cable.b : cable.b == v ? cable.a : v;
    if (other != v && s.part(other).group == group) out.push_back(other);
  }
  return out;
}

Bandwidth total_to(const System& s, EndpointId v, PartKind kind, const std::string& group = "") {
  Bandwidth sum{};
  for (std::uint32_t c = 0; c < s.num_cables(); ++c) {
    const Cable& cable = s.cable(c);
    if (cable.a != v && cable.b != v) continue;
    const Part& other = s.part(cable.a == v ? cable.b : cable.a);
    if (other.kind == kind && (group.empty() || other.group == group))
      sum.bytes_per_s += cable.spec.bandwidth.bytes_per_s;
  }
  return sum;
}

}  // namespace

TEST_CASE("the shipped DGX H100 clusters load with their GPUs and switches", "[topology][fabric]") {
  // 8 rails; 64-port leaves give 32 ports to NICs, so a rail of n nodes
  // needs ceil(n/32) leaves, each with as many uplinks as NICs.
  struct Expect {
    int nodes;
    std::size_t leaves, spines;
  };
  for (const Expect e : {Expect{4, 8, 4}, Expect{32, 8, 32}, Expect{128, 32, 32}}) {
    INFO(e.nodes << " nodes");
    const System& s = cluster(e.nodes);
    CHECK(s.gpus().size() == static_cast<std::size_t>(8 * e.nodes));
    CHECK(s.num_nodes() == e.nodes);
    CHECK(count_group(s, "leaf") == e.leaves);
    CHECK(count_group(s, "spine") == e.spines);
    CHECK(count_group(s, "core") == 0);
    CHECK(s.part(s.gpus().back()).name == "node" + std::to_string(e.nodes - 1) + ".gpu7");
  }
}

TEST_CASE("rail-optimised: every leaf holds one rail and same-rail traffic stays at the leaf", "[topology][fabric]") {
  const System& s = cluster(32);
  for (EndpointId leaf : s.parts_of_kind(PartKind::network_switch)) {
    if (s.part(leaf).group != "leaf") continue;
    std::set<int> rails;
    for (std::uint32_t c = 0; c < s.num_cables(); ++c) {
      const Cable& cable = s.cable(c);
      if (cable.b == leaf && s.part(cable.a).kind == PartKind::nic) rails.insert(s.part(cable.a).index);
    }
    CHECK(rails.size() == 1);
  }
  const Path& p = s.route(fat_tree_id(s, "node0.gpu3"), fat_tree_id(s, "node31.gpu3"));
  std::vector<std::string> names;
  for (EndpointId v : parts_on(s, p)) names.push_back(s.part(v).name);
  REQUIRE(names.size() == 7);
  CHECK(names[1] == "node0.pcie_switch3");
  CHECK(names[2] == "node0.nic3");
  CHECK(s.part(fat_tree_id(s, names[3])).group == "leaf");
  CHECK(names[4] == "node31.nic3");
  CHECK(names[6] == "node31.gpu3");
}

TEST_CASE("cross-rail traffic climbs to a spine and never crosses a CPU socket", "[topology][fabric]") {
  const System& s = cluster(4);
  for (int src = 0; src < 8; ++src) {
    for (int dst = 0; dst < 8; ++dst) {
      const auto a = fat_tree_id(s, "node0.gpu" + std::to_string(src));
      const auto b = fat_tree_id(s, "node2.gpu" + std::to_string(dst));
      const auto parts = parts_on(s, s.route(a, b));
      int spines = 0, cpus = 0;
      for (EndpointId v : parts) {
        spines += s.part(v).group == "spine" ? 1 : 0;
        cpus += s.part(v).kind == PartKind::cpu_socket ? 1 : 0;
      }
      INFO("gpu" << src << " -> node2.gpu" << dst);
      CHECK(cpus == 0);
      CHECK(spines == (src == dst ? 0 : 1));
      CHECK(s.part(parts[2]).name == "node0.nic" + std::to_string(src));  // out through its own NIC
    }
  }
}

TEST_CASE("ECMP spreads flows over the spines deterministically with collisions", "[topology][fabric][ecmp]") {
  // InfiniBand routes adaptively unless told otherwise; this is the hashed
  // fabric. Rail leaves have 4 uplinks each: 4 equal-cost spines.
  const System s = test::dgx_h100_x4_ndr_routed("ecmp");
  const auto a = fat_tree_id(s, "node0.gpu0");
  const auto b = fat_tree_id(s, "node3.gpu5");
  const Path& fixed = s.route(a, b);
  std::map<EndpointId, int> flows_per_spine;
  for (std::uint64_t key = 0; key < 64; ++key) {
    const Path& p = s.route(a, b, key);
    CHECK(&s.route(a, b, key) == &p);  // same key, same path (and the same cached object)
    CHECK(p.links.size() == fixed.links.size());
    CHECK(p.latency == fixed.latency);
    for (EndpointId v : parts_on(s, p)) {
      if (s.part(v).group == "spine") ++flows_per_spine[v];
    }
  }
  CHECK(flows_per_spine.size() == 4);  // every spine carries some flow
  int total = 0;
  for (const auto& [spine, flows] : flows_per_spine) total += flows;
  CHECK(total == 64);
  // Some pair of the first five keys must share a spine (4 spines).
  std::set<EndpointId> first_five;
  for (std::uint64_t key = 0; key < 5; ++key) {
    for (EndpointId v : parts_on(s, s.route(a, b, key))) {
      if (s.part(v).group == "spine") first_five.insert(v);
    }
  }
  CHECK(first_five.size() < 5);
  // The leaf's choices are exactly its 4 uplinks.
  const auto leaf = parts_on(s, fixed)[3];
  CHECK(s.next_hops(leaf, b).size() == 4);
  CHECK(s.route(a, a, 7).links.empty());
}

TEST_CASE("oversubscription divides leaf uplink bandwidth by the ratio", "[topology][fabric]") {
  const System full = test::system_from_file("configs/systems/dgx_h100_x128_ndr.yaml");
  const System half = test::system_from_file("configs/systems/dgx_h100_x128_ndr_2to1.yaml");
  CHECK(half.gpus().size() == 1024);
  // 2:1 on 64 ports: 42 NIC ports a leaf, so 25 leaves of 40-41 NICs with 20-21 uplinks.
  CHECK(count_group(half, "leaf") == 25);
  CHECK(count_group(half, "spine") == 21);
  for (const auto& [s, ratio] : {std::pair<const System*, double>{&full, 1.0}, {&half, 2.0}}) {
    int leaves = 0;
    for (EndpointId leaf : s->parts_of_kind(PartKind::network_switch)) {
      if (s->part(leaf).group != "leaf") continue;
      ++leaves;
      const double down = total_to(*s, leaf, PartKind::nic).bytes_per_s;
      const double up = total_to(*s, leaf, PartKind::network_switch, "spine").bytes_per_s;
      const auto nics = static_cast<double>(neighbours_in(*s, leaf, "spine").size());
      INFO(s->part(leaf).name << ": down " << down << " up " << up);
      CHECK(nics == std::ceil(down / Bandwidth::gigabytes_per_s(50).bytes_per_s / ratio));  // 400 Gb/s = 50 GB/s
      CHECK(down / up <= ratio + 1e-9);
      CHECK(down / up > ratio * 0.9);  // rounding up to whole cables only
    }
    CHECK(leaves > 1);
  }
}

TEST_CASE("the leaf arithmetic of ports and uplinks and even spreading", "[topology][fabric]") {
  CHECK(leaf_down_ports(64, 1.0, 2) == 32);
  CHECK(leaf_down_ports(64, 2.0, 2) == 42);
  CHECK(leaf_down_ports(64, 3.0, 3) == 48);
  CHECK(leaf_down_ports(40, 1.0, 1) == 40);
  CHECK(leaf_uplinks(32, 1.0) == 32);
  CHECK(leaf_uplinks(41, 2.0) == 21);
  CHECK(leaf_uplinks(1, 4.0) == 1);
  // 3 nodes x 2 NICs, 4 ports per leaf.
  const std::vector<std::vector<EndpointId>> nics{{0, 1}, {2, 3}, {4, 5}};
  CHECK(assign_leaves(nics, false, 4) == std::vector<std::vector<EndpointId>>{{0, 1, 2}, {3, 4, 5}});
  CHECK(assign_leaves(nics, true, 4) == std::vector<std::vector<EndpointId>>{{0, 2, 4}, {1, 3, 5}});
  CHECK(assign_leaves(nics, true, 2) == std::vector<std::vector<EndpointId>>{{0}, {2, 4}, {1}, {3, 5}});
}

namespace {

// n single-GPU nodes with one NIC each.
std::string small_cluster(int nodes, const std::string& fabric) {
  return R"(system:
  name: small
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: epyc-9654}
        gpu: {kind: gpu, model: h100-pcie}
        nic: {kind: nic, model: connectx-7-ndr}
      links:
        - {between: [gpu, cpu], kind: pcie_gen5_x16}
        - {between: [nic, cpu], kind: pcie_gen5_x16}
  nodes:
    - {template: box, count: )" +
         std::to_string(nodes) + "}\n  fabric: " + fabric + "\n";
}

}  // namespace

TEST_CASE("three tiers: pods of leaves and spines under a core", "[topology][fabric]") {
  // Radix 8: leaves of 4 NICs, pods of 4 leaves with 4 spines, 4 pods, and
  // 4 core groups of 4 (one uplink per leaf a spine serves).
  const System s = test::system_from_text(
      small_cluster(64, "{kind: fat_tree, tiers: 3, radix: 8, link: ethernet, bandwidth: 400 Gb/s}"));
  CHECK(count_group(s, "leaf") == 16);
  CHECK(count_group(s, "spine") == 16);
  CHECK(count_group(s, "core") == 16);
  for (EndpointId sw : s.parts_of_kind(PartKind::network_switch)) {
    int ports = 0;
    for (std::uint32_t c = 0; c < s.num_cables(); ++c) ports += (s.cable(c).a == sw || s.cable(c).b == sw) ? 1 : 0;
    CHECK(ports <= 8);  // nothing exceeds the radix
  }
  const auto far = parts_on(s, s.route(s.gpus().front(), s.gpus().back()));
  std::vector<std::string> groups;
  for (EndpointId v : far) {
    if (s.part(v).kind == PartKind::network_switch) groups.push_back(s.part(v).group);
  }
  CHECK(groups == std::vector<std::string>{"leaf", "spine", "core", "spine", "leaf"});
  // ECMP at the source leaf picks among its 4 spines, at the spine among its 4 cores.
  std::set<EndpointId> cores;
  for (std::uint64_t key = 0; key < 200; ++key) {
    for (EndpointId v : parts_on(s, s.route(s.gpus().front(), s.gpus().back(), key))) {
      if (s.part(v).group == "core") cores.insert(v);
    }
  }
  CHECK(cores.size() == 16);
}

TEST_CASE("a one-tier fabric is one switch and one leaf gets no spine", "[topology][fabric]") {
  const System gh = test::system_from_file("configs/systems/gh200_x4_ndr.yaml");
  CHECK(gh.gpus().size() == 4);
  CHECK(gh.parts_of_kind(PartKind::network_switch).size() == 1);
  const auto parts = parts_on(gh, gh.route(gh.gpus()[0], gh.gpus()[3]));
  CHECK(parts.size() == 7);  // gpu grace nic leaf0 nic grace gpu
  CHECK(gh.part(parts[3]).name == "leaf0");
  const System two =
      test::system_from_text(small_cluster(8, "{kind: fat_tree, tiers: 2, radix: 64, link: infiniband_ndr}"));
  CHECK(two.parts_of_kind(PartKind::network_switch).size() == 1);
}

TEST_CASE("a mixed cluster: A100 NICs link at HDR on the NDR fabric", "[topology][fabric]") {
  const System s = test::system_from_file("configs/systems/mixed_h100_a100_ndr.yaml");
  REQUIRE(s.gpus().size() == 32);
  CHECK(s.part(s.gpus()[0]).model == "h100-sxm");
  CHECK(s.part(s.gpus()[31]).model == "a100-sxm-80gb");
  const Path& p = s.route(fat_tree_id(s, "node0.gpu0"), fat_tree_id(s, "node3.gpu0"));
  double slowest = 1e30;
  for (LinkId l : p.links) slowest = std::min(slowest, s.link_spec(l).bandwidth.gb_per_s());
  CHECK(slowest == Approx(25));  // 200 Gb/s
  const auto h100_leaf = total_to(s, fat_tree_id(s, "node0.nic0"), PartKind::network_switch);
  const auto a100_leaf = total_to(s, fat_tree_id(s, "node3.nic0"), PartKind::network_switch);
  CHECK(h100_leaf.gb_per_s() == Approx(50));
  CHECK(a100_leaf.gb_per_s() == Approx(25));
}

TEST_CASE("a 1024-GPU ring routes every neighbour pair and both ways of routing", "[topology][fabric]") {
  const System& s = cluster(128);
  const auto& gpus = s.gpus();
  std::size_t crossing = 0;
  for (std::size_t r = 0; r < gpus.size(); ++r) {
    const EndpointId next = gpus[(r + 1) % gpus.size()];
    const Path& p = s.route(gpus[r], next);
    const Path& q = s.route(gpus[r], next, r);
    CHECK(p.links.size() == q.links.size());
    if (s.part(gpus[r]).node != s.part(next).node) ++crossing;
  }
  CHECK(crossing == 128);
}

// Every node i sends to node i + shift (mod the node count), one flow each,
// each under its own flow key; returns the most flows any directed link
// carries.
int most_flows_on_a_link(const System& s, int shift) {
  const auto& gpus = s.gpus();
  const auto n = static_cast<int>(gpus.size());
  std::map<LinkId, int> flows;
  int most = 0;
  for (int i = 0; i < n; ++i) {
    const Path& p = s.route(gpus[i], gpus[(i + shift) % n], static_cast<std::uint64_t>(i));
    for (LinkId l : p.links) most = std::max(most, ++flows[l]);
  }
  return most;
}

TEST_CASE("static routing: the uplink is the destination's digit, and shifts share no link",
          "[topology][fabric][routing]") {
  // 64 one-GPU nodes, 4 to a leaf, 3 tiers of radix-8 switches: a full
  // 4-ary tree, as D-mod-k's guarantee assumes.
  const std::string fabric = "{kind: fat_tree, tiers: 3, radix: 8, link: ethernet, bandwidth: 400 Gb/s";
  const System hashed = test::system_from_text(small_cluster(64, fabric + "}"));
  const System fixed = test::system_from_text(small_cluster(64, fabric + ", routing: static}"));
  CHECK(hashed.fabric_routing() == FabricRouting::ecmp);
  REQUIRE(fixed.fabric_routing() == FabricRouting::by_destination);
  // One path a pair, whatever the flow (and the unkeyed route is it).
  const auto a = fixed.gpus()[1];
  const auto b = fixed.gpus()[62];
  for (std::uint64_t key = 0; key < 8; ++key) CHECK(fixed.route(a, b, key).links == fixed.route(a, b).links);
  // Every shift that leaves the leaf: no link carries two flows under the
  // static tables; ECMP's hash puts two on one link for some shift.
  int hashed_most = 0;
  for (int shift : {4, 5, 16, 21, 32, 60}) {
    INFO("shift " << shift);
    CHECK(most_flows_on_a_link(fixed, shift) == 1);
    hashed_most = std::max(hashed_most, most_flows_on_a_link(hashed, shift));
  }
  CHECK(hashed_most >= 2);
}

TEST_CASE("a fabric that names no routing takes its link kind's: InfiniBand adaptive, Ethernet ECMP",
          "[topology][fabric][routing]") {
  const auto routing_of = [](const std::string& link) {
    return test::system_from_text(small_cluster(8, "{kind: fat_tree, tiers: 2, radix: 8, link: " + link + "}"))
        .fabric_routing();
  };
  CHECK(routing_of("infiniband_ndr") == FabricRouting::adaptive);
  CHECK(routing_of("infiniband_hdr") == FabricRouting::adaptive);
  CHECK(routing_of("ethernet") == FabricRouting::ecmp);
  // A named routing wins over the kind's.
  CHECK(test::system_from_text(
            small_cluster(8, "{kind: fat_tree, tiers: 2, radix: 8, link: infiniband_ndr, routing: ecmp}"))
            .fabric_routing() == FabricRouting::ecmp);
}

TEST_CASE("a fabric's routing is ecmp, static or adaptive", "[topology][fabric][routing][errors]") {
  CHECK_THROWS_WITH(
      test::system_from_text(small_cluster(8, "{kind: fat_tree, tiers: 2, radix: 8, link: ethernet, routing: spray}")),
      Catch::Contains("routing") && Catch::Contains("ecmp") && Catch::Contains("static") &&
          Catch::Contains("adaptive") && Catch::Contains("test.yaml"));
}

TEST_CASE("adaptive routing crosses each tier as one pool of its links' summed rate", "[topology][fabric][routing]") {
  // 64 one-GPU nodes, 4 to a leaf, pods of 4 leaves, 3 tiers of radix 8.
  const std::string fabric = "{kind: fat_tree, tiers: 3, radix: 8, link: ethernet, bandwidth: 400 Gb/s";
  const System pooled = test::system_from_text(small_cluster(64, fabric + ", routing: adaptive}"));
  const System fixed = test::system_from_text(small_cluster(64, fabric + ", routing: static}"));
  REQUIRE(pooled.fabric_routing() == FabricRouting::adaptive);
  const auto& gpus = pooled.gpus();
  const auto pools_on = [&](const Path& p) {
    std::vector<std::string> names;
    for (LinkId l : p.links) {
      if (!pooled.is_bundle(l)) continue;
      names.push_back(pooled.bundle(l).name);
      CHECK(pooled.link_spec(l).bandwidth.gb_per_s() ==
            Approx(50.0 * static_cast<double>(pooled.bundle(l).members.size())));
    }
    return names;
  };
  // Another pod: up the leaf's 4 uplinks, the pod's 16 core links, down the
  // other pod's and the leaf's; the hops and latency of the walked path.
  const Path& far = pooled.route(gpus[0], gpus[63]);
  CHECK(pools_on(far) ==
        std::vector<std::string>{"leaf0 uplinks", "pod0 core uplinks", "pod3 core downlinks", "leaf15 downlinks"});
  CHECK(far.latency == fixed.route(gpus[0], gpus[63]).latency);
  for (LinkId l : far.links) {
    if (pooled.is_bundle(l)) CHECK(pooled.bundle(l).members.size() == (pooled.bundle(l).name[0] == 'p' ? 16U : 4U));
  }
  for (std::uint64_t key = 0; key < 8; ++key) CHECK(pooled.route(gpus[0], gpus[63], key).links == far.links);
  // The same pod: two pools; the same leaf: none.
  CHECK(pools_on(pooled.route(gpus[0], gpus[5])) == std::vector<std::string>{"leaf0 uplinks", "leaf1 downlinks"});
  CHECK(pools_on(pooled.route(gpus[0], gpus[3])).empty());
  CHECK(pooled.link_capacities().size() == pooled.num_flow_links());
  CHECK(fixed.num_flow_links() == fixed.num_links());  // other routings add no pools
}

namespace {

// Every node i (or node `only`) sends 1 GB to node i + shift at once, each
// flow under its own key; the time until the last arrives, in seconds.
double shift_time_s(const System& s, int shift, int only = -1) {
  Engine engine;
  FlowNetwork network(engine, s.link_capacities());
  const auto& gpus = s.gpus();
  const auto n = static_cast<int>(gpus.size());
  network.begin_batch();
  for (int i = std::max(only, 0); i < (only >= 0 ? only + 1 : n); ++i) {
    network.start(s.route(gpus[i], gpus[(i + shift) % n], static_cast<std::uint64_t>(i)), 1e9, [] {});
  }
  network.end_batch();
  engine.run();
  return ps_to_seconds(engine.now());
}

}  // namespace

TEST_CASE("adaptive routing spreads flows that ECMP's hash stacks on one uplink", "[topology][fabric][routing]") {
  const std::string fabric = "{kind: fat_tree, tiers: 3, radix: 8, link: ethernet, bandwidth: 400 Gb/s";
  const System hashed = test::system_from_text(small_cluster(64, fabric + "}"));
  const System pooled = test::system_from_text(small_cluster(64, fabric + ", routing: adaptive}"));
  for (int shift : {4, 21, 32}) {
    INFO("shift " << shift);
    // Every flow as fast as one alone: the pools hold all of them.
    double alone = 0;
    for (int i = 0; i < 64; ++i) alone = std::max(alone, shift_time_s(pooled, shift, i));
    CHECK(shift_time_s(pooled, shift) == Approx(alone).epsilon(1e-6));
    // ECMP's collisions halve some flow's rate (most_flows_on_a_link >= 2 above).
    CHECK(shift_time_s(hashed, shift) > 1.5 * alone);
  }
}

TEST_CASE("an adaptive fabric's pools are count-only where they cannot bind, shared where oversubscribed",
          "[topology][fabric][routing]") {
  const std::string fabric = "{kind: fat_tree, tiers: 2, radix: 8, link: ethernet, bandwidth: 400 Gb/s, ";
  const System full = test::system_from_text(small_cluster(16, fabric + "routing: adaptive}"));
  const System halved = test::system_from_text(small_cluster(16, fabric + "oversubscription: 3, routing: adaptive}"));
  REQUIRE_FALSE(full.fabric_bundles().empty());
  REQUIRE_FALSE(halved.fabric_bundles().empty());
  // Non-blocking: a leaf's uplinks carry at least what its NICs can send.
  for (const LinkBundle& b : full.fabric_bundles().all()) CHECK(b.never_binding);
  // 3:1, a leaf of 6 NICs (or 4) has 2 uplinks: its pools can bind, so they share rates.
  for (const LinkBundle& b : halved.fabric_bundles().all()) CHECK_FALSE(b.never_binding);
}

TEST_CASE("queue pairs hashed apart spread a connection over the uplinks, the same for every key",
          "[topology][fabric][routing][ecmp]") {
  const std::string fabric = "{kind: fat_tree, tiers: 3, radix: 8, link: ethernet, bandwidth: 400 Gb/s";
  const System hashed = test::system_from_text(small_cluster(64, fabric + "}"));
  const System spread = test::system_from_text(small_cluster(64, fabric + ", qps_per_connection: 16}"));
  const System joined =
      test::system_from_text(small_cluster(64, fabric + ", qps_per_connection: 16, ecmp_hash: connection}"));
  REQUIRE(spread.queue_pairs().per_connection == 16);
  const auto& gpus = spread.gpus();
  const Path& far = spread.route(gpus[0], gpus[63], 0);
  for (std::uint64_t key = 1; key < 8; ++key) CHECK(&spread.route(gpus[0], gpus[63], key) == &far);
  REQUIRE(far.shares.size() == far.links.size());
  // Each tier's links carry the whole connection between them, and more than
  // one uplink of the leaf and of the pod carries some of it.
  std::map<std::string, double> share_by_hop;  // "leaf->spine", ...
  std::map<std::string, int> links_by_hop;
  for (std::size_t i = 0; i < far.links.size(); ++i) {
    const std::string hop = spread.part(spread.link_source(far.links[i])).group + "->" +
                            spread.part(spread.link_target(far.links[i])).group;
    share_by_hop[hop] += far.shares[i];
    ++links_by_hop[hop];
  }
  for (const auto& [hop, share] : share_by_hop) CHECK(share == Approx(1.0));
  CHECK(links_by_hop["leaf->spine"] > 1);
  CHECK(links_by_hop["spine->core"] > 1);
  CHECK(far.latency == hashed.route(gpus[0], gpus[63], 0).latency);
  // Under one leaf there is one way: nothing to spread.
  CHECK(spread.route(gpus[0], gpus[3], 0).shares.empty());
  // Hashed as one connection, the queue pairs share the flow key's one path.
  for (std::uint64_t key = 0; key < 8; ++key) {
    const Path& one = joined.route(gpus[0], gpus[63], key);
    CHECK(one.shares.empty());
    CHECK(one.links == hashed.route(gpus[0], gpus[63], key).links);
  }
}

TEST_CASE("more queue pairs per connection spread ECMP's collisions finer", "[topology][fabric][routing][ecmp]") {
  const std::string fabric = "{kind: fat_tree, tiers: 3, radix: 8, link: ethernet, bandwidth: 400 Gb/s";
  const auto with_qps = [&](int qps) {
    return test::system_from_text(small_cluster(64, fabric + ", qps_per_connection: " + std::to_string(qps) + "}"));
  };
  const System hashed = test::system_from_text(small_cluster(64, fabric + "}"));
  const System sixteen = with_qps(16), sixty_four = with_qps(64);
  const System pooled = test::system_from_text(small_cluster(64, fabric + ", routing: adaptive}"));
  for (int shift : {4, 21, 32}) {
    INFO("shift " << shift);
    const double ideal = shift_time_s(pooled, shift);
    const double t1 = shift_time_s(hashed, shift), t16 = shift_time_s(sixteen, shift),
                 t64 = shift_time_s(sixty_four, shift);
    // One queue pair: whole flows collide (up to 4 on an uplink here). Many:
    // each uplink carries near its mean share, the more queue pairs the nearer
    // (a connection keeps its slowest queue pair's pace, so never the ideal).
    CHECK(t1 > 3 * ideal);
    CHECK(t16 < 0.5 * t1);
    CHECK(t64 < t16);
    CHECK(t64 >= ideal * (1 - 1e-9));
  }
}

TEST_CASE("queue pairs per connection are checked against the fabric's routing",
          "[topology][fabric][routing][errors]") {
  const std::string fabric = "{kind: fat_tree, tiers: 2, radix: 8, link: ethernet, ";
  CHECK_THROWS_WITH(
      test::system_from_text(small_cluster(8, fabric + "routing: static, qps_per_connection: 4}")),
      Catch::Contains("qps_per_connection") && Catch::Contains("routing: ecmp") && Catch::Contains("test.yaml"));
  CHECK_THROWS_WITH(test::system_from_text(small_cluster(8, fabric + "routing: adaptive, ecmp_hash: queue_pair}")),
                    Catch::Contains("ecmp_hash") && Catch::Contains("routing: ecmp"));
  CHECK_THROWS_WITH(test::system_from_text(small_cluster(8, fabric + "qps_per_connection: 0}")),
                    Catch::Contains("qps_per_connection") && Catch::Contains("1 to 128"));
  CHECK_THROWS_WITH(test::system_from_text(small_cluster(8, fabric + "ecmp_hash: flow}")),
                    Catch::Contains("ecmp_hash") && Catch::Contains("queue_pair") && Catch::Contains("connection"));
  // One queue pair under static routing says nothing wrong.
  CHECK_NOTHROW(test::system_from_text(small_cluster(8, fabric + "routing: static, qps_per_connection: 1}")));
}
