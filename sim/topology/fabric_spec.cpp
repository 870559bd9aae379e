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

FabricRouting parse_routing(const ConfigNode& node) {
  if (!node.optional_child("routing")) return FabricRouting::ecmp;
  const std::string routing = node.choice("routing", {"ecmp", "static", "adaptive"});
  if (routing == "static") return FabricRouting::by_destination;
  return routing == "adaptive" ? FabricRouting::adaptive : FabricRouting::ecmp;
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
  return FabricSpec{tiers,
                    parse_radix(node, tiers),
                    parse_oversubscription(node),
                    rail_optimised,
                    parse_fabric_link(node, link_kinds),
                    parse_nics(node),
                    parse_routing(node),
                    node};
}

}  // namespace simctl
