#include "sim/topology/fabric_spec.hpp"

#include <stdexcept>

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

int parse_tiers(const ConfigNode& node) {
  const ConfigNode tiers = node.child("tiers");
  const std::int64_t value = tiers.as_integer();
  if (value < 1 || value > 3) {
    tiers.fail("a fat tree has 1, 2 or 3 tiers (one switch, leaf-spine, leaf-spine-core); got " +
               std::to_string(value));
  }
  return static_cast<int>(value);
}

int parse_radix(const ConfigNode& node, int tiers) {
  constexpr std::int64_t kMaxRadix = 1024;  // a typo guard; real switches have up to a few hundred ports
  const ConfigNode radix = node.child("radix");
  const std::int64_t value = radix.as_integer();
  const std::int64_t least = tiers == 1 ? 1 : 2;  // a leaf needs a port down and one up
  if (value < least || value > kMaxRadix) {
    radix.fail("the switch radix (ports per switch) must be between " + std::to_string(least) + " and " +
               std::to_string(kMaxRadix) + "; got " + std::to_string(value));
  }
  return static_cast<int>(value);
}

double parse_oversubscription(const ConfigNode& node) {
  auto field = node.optional_child("oversubscription");
  if (!field) return 1.0;
  const double value = field->as_number();
  if (!(value >= 1.0) || value > 1000.0) {
    field->fail(
        "the oversubscription ratio (leaf downlink to uplink bandwidth) must be at least 1 "
        "(1 = non-blocking, 2 = 2:1); got " +
        field->as_string());
  }
  return value;
}

LinkSpec parse_fabric_link(const ConfigNode& node, const LinkKindTable& link_kinds) {
  const ConfigNode kind_node = node.child("link");
  const std::string text = kind_node.as_string();
  const auto kind = link_kind_from_string(text);
  if (!kind) {
    std::vector<std::string> names;
    for (LinkKind k : kAllLinkKinds) names.emplace_back(to_string(k));
    kind_node.fail("unknown link kind '" + text + "'; valid kinds are " + join_choices(names));
  }
  LinkSpec spec = link_kinds.defaults(*kind);
  if (node.has("bandwidth")) spec.bandwidth = node.bandwidth("bandwidth");
  if (node.has("latency")) spec.latency = node.time("latency");
  return spec;
}

PartSelector parse_nics(const ConfigNode& node) {
  auto field = node.optional_child("nics");
  if (!field) return parse_part_selector("nic");
  try {
    PartSelector sel = parse_part_selector(field->as_string());
    if (sel.nodes) field->fail("name the parts within one node, e.g. \"nic[*]\"; the fabric joins every node");
    return sel;
  } catch (const std::invalid_argument& e) {
    field->fail(e.what());
  }
}

// Without `routing`, the link kind's default (link_kinds.yaml fabric_routing:
// InfiniBand routes adaptively, Ethernet hashes).
FabricRouting parse_routing(const ConfigNode& node, const LinkSpec& link) {
  if (!node.optional_child("routing")) return link.routes_adaptively ? FabricRouting::adaptive : FabricRouting::ecmp;
  const std::string routing = node.choice("routing", {"ecmp", "static", "adaptive"});
  if (routing == "static") return FabricRouting::by_destination;
  return routing == "adaptive" ? FabricRouting::adaptive : FabricRouting::ecmp;
}

// Queue pairs spread a connection only where switches hash flows; under
// static or adaptive routing they would silently change nothing.
QueuePairs parse_queue_pairs(const ConfigNode& node, FabricRouting routing) {
  QueuePairs qps;
  if (auto field = node.optional_child("qps_per_connection")) {
    const std::int64_t count = field->as_integer();
    if (count < 1 || count > 128) field->fail("queue pairs per connection run from 1 to 128 (NCCL's default is 1)");
    qps.per_connection = static_cast<int>(count);
    if (count > 1 && routing != FabricRouting::ecmp) {
      field->fail(
          "queue pairs spread a connection only under `routing: ecmp`; static and adaptive routing send "
          "every queue pair of a connection the same way, so drop the field or set routing: ecmp");
    }
  }
  if (auto field = node.optional_child("ecmp_hash")) {
    if (routing != FabricRouting::ecmp) field->fail("ecmp_hash applies under `routing: ecmp` only");
    qps.hash =
        field->as_choice({"queue_pair", "connection"}) == "connection" ? EcmpHash::connection : EcmpHash::queue_pair;
  }
  return qps;
}

}  // namespace

FabricSpec parse_fabric(const ConfigNode& node, const LinkKindTable& link_kinds) {
  expect_section(node, "system.fabric");
  node.choice("kind", {"fat_tree"});
  const int tiers = parse_tiers(node);
  const bool rail_optimised = node.bool_or("rail_optimised", false);
  if (rail_optimised && tiers == 1) {
    node.child("rail_optimised")
        .fail(
            "rails need leaves joined by spines; with tiers: 1 every NIC is on one switch, so set tiers: 2 or "
            "rail_optimised: false");
  }
  const LinkSpec link = parse_fabric_link(node, link_kinds);
  const FabricRouting routing = parse_routing(node, link);
  return FabricSpec{tiers,
                    parse_radix(node, tiers),
                    parse_oversubscription(node),
                    rail_optimised,
                    link,
                    parse_nics(node),
                    routing,
                    parse_queue_pairs(node, routing),
                    node};
}

}  // namespace simctl
