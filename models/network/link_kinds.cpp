#include "models/network/link_kinds.hpp"

#include <set>

#include "sim/config/config_node.hpp"

namespace simctl {

namespace {

std::vector<std::string> kind_names() {
  std::vector<std::string> names;
  for (LinkKind kind : kAllLinkKinds) names.emplace_back(to_string(kind));
  return names;
}

LinkSpec read_spec(LinkKind kind, const ConfigNode& node) {
  node.expect_keys({"bandwidth", "latency", "efficiency", "fabric_routing", "sources"});
  node.child("sources").expect_keys({"bandwidth", "latency", "efficiency", "fabric_routing"});
  LinkSpec spec;
  spec.kind = kind;
  spec.bandwidth = node.bandwidth("bandwidth");
  spec.latency = node.time("latency");
  spec.efficiency = node.number("efficiency");
  if (spec.efficiency <= 0.0 || spec.efficiency > 1.0) node.child("efficiency").fail("must be in (0, 1]");
  if (node.has("fabric_routing")) {
    spec.routes_adaptively = node.choice("fabric_routing", {"ecmp", "adaptive"}) == "adaptive";
    if (!node.child("sources").has("fabric_routing")) node.child("sources").child("fabric_routing");  // names it
  }
  return spec;
}

}  // namespace

LinkKindTable LinkKindTable::load(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  root.expect_keys({"link_kinds"});
  const ConfigNode kinds = root.child("link_kinds");
  LinkKindTable table;
  std::set<LinkKind> seen;
  for (const auto& [name, node] : kinds.entries()) {
    const auto kind = link_kind_from_string(name);
    if (!kind) node.fail("unknown link kind '" + name + "'; valid: " + join_choices(kind_names()));
    table.specs_[static_cast<std::size_t>(*kind)] = read_spec(*kind, node);
    seen.insert(*kind);
  }
  for (LinkKind kind : kAllLinkKinds) {
    if (!seen.contains(kind)) kinds.fail("missing link kind '" + std::string(to_string(kind)) + "'");
  }
  return table;
}

}  // namespace simctl
