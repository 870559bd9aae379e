#include "sim/topology/system_decls.hpp"

#include <algorithm>
#include <regex>
#include <set>
#include <stdexcept>

#include "models/devices/gpu_variant.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/topology/catalogue_models.hpp"
#include "sim/topology/template_import.hpp"

namespace simctl {
namespace {

// Group names become part names and selector heads, so they stay plain.
void check_identifier(const std::string& name, const ConfigNode& where, const char* what) {
  static const std::regex identifier("^[A-Za-z_][A-Za-z0-9_]*$");
  if (!std::regex_match(name, identifier)) {
    where.fail(std::string(what) + " name '" + name + "' must be letters, digits and '_', starting with a letter");
  }
}

PartKind parse_part_kind(const ConfigNode& group) {
  const ConfigNode node = group.child("kind");
  const std::string text = node.as_string();
  auto kind = part_kind_from_string(text);
  if (!kind) node.fail("unknown part kind '" + text + "'; valid kinds are " + join_choices(part_kind_names()));
  return *kind;
}

std::string parse_model(const ConfigNode& group, PartKind kind, const DeviceCatalogue& catalogue) {
  const std::string kind_name(to_string(kind));
  if (!has_catalogue_model(kind)) {
    if (group.has("model")) group.child("model").fail("a " + kind_name + " has no catalogue model; remove this field");
    return "";
  }
  const ConfigNode node = group.child("model");
  const std::string id = node.as_string();
  const auto ids = catalogue_ids_for(catalogue, kind);
  if (std::find(ids.begin(), ids.end(), id) == ids.end()) {
    node.fail("unknown " + kind_name + " model '" + id + "'; the catalogue's " + kind_name + " models are " +
              (ids.empty() ? std::string("(none)") : join_choices(ids)));
  }
  return id;
}

int parse_count(const ConfigNode& group) {
  constexpr std::int64_t kMaxCount = 1'000'000;  // a typo guard, far above any real machine
  if (!group.has("count")) return 1;
  const std::int64_t count = group.positive_integer("count");
  if (count > kMaxCount) group.child("count").fail("must be at most " + std::to_string(kMaxCount));
  return static_cast<int>(count);
}

Bytes parse_capacity(const ConfigNode& group, PartKind kind) {
  if (!group.has("capacity")) return 0;
  if (kind != PartKind::dram && kind != PartKind::storage) {
    group.child("capacity").fail("capacity applies to dram and storage parts only");
  }
  return group.size("capacity");
}

GpuVariant parse_variant_fields(const ConfigNode& node, const DeviceCatalogue& catalogue) {
  expect_section(node, "parts.<group>.variant");
  GpuVariant v;
  const ConfigNode name = node.child("name");
  v.id = name.as_string();
  static const std::regex id_pattern("^[a-z0-9][a-z0-9._-]*$");
  if (!std::regex_match(v.id, id_pattern))
    name.fail("variant name '" + v.id + "' must be lower-case letters, digits, '.', '_' and '-'");
  if (catalogue.find_gpu(v.id) != nullptr)
    name.fail("'" + v.id + "' is a catalogue GPU already; give the variant a name of its own");
  if (node.has("memory_capacity")) v.memory_capacity = node.size("memory_capacity");
  if (node.has("memory_bandwidth")) v.memory_bandwidth = node.bandwidth("memory_bandwidth");
  if (node.has("power_limit")) v.power_limit_watts = node.child("power_limit").as_power_watts();
  if (node.has("clock_scale")) {
    v.clock_scale = node.number("clock_scale");
    if (!(*v.clock_scale > 0.0 && *v.clock_scale <= 2.0)) node.child("clock_scale").fail("must be in (0, 2]");
  }
  if (v.memory_capacity && *v.memory_capacity <= 0) node.child("memory_capacity").fail("must be positive");
  v.declared_at = node.location().to_string();
  return v;
}

// A GPU group's `variant:`: its catalogue model with figures of its own.
std::optional<GpuSpec> parse_variant(const ConfigNode& group, PartKind kind, const GpuSpec* base,
                                     const DeviceCatalogue& catalogue) {
  auto node = group.optional_child("variant");
  if (!node) return std::nullopt;
  if (kind != PartKind::gpu) node->fail("variant applies to gpu parts only");
  const GpuVariant v = parse_variant_fields(*node, catalogue);
  try {
    return derive_gpu_variant(*base, v);
  } catch (const GpuVariantError& e) {
    node->child(e.field()).fail(e.what());
  }
}

GroupDecl parse_group(const std::string& name, const ConfigNode& node, const DeviceCatalogue& catalogue) {
  check_identifier(name, node, "part group");
  expect_section(node, "parts.<group>");
  const PartKind kind = parse_part_kind(node);
  GroupDecl group{name, kind, parse_model(node, kind, catalogue), parse_count(node), parse_capacity(node, kind), node};
  const GpuSpec* gpu = kind == PartKind::gpu ? catalogue.find_gpu(group.model) : nullptr;
  if (gpu != nullptr) group.architecture = gpu->architecture;
  group.variant = parse_variant(node, kind, gpu, catalogue);
  if (group.variant) group.model = group.variant->id;
  return group;
}

LinkKind parse_link_kind(const ConfigNode& link) {
  const ConfigNode node = link.child("kind");
  const std::string text = node.as_string();
  if (auto kind = link_kind_from_string(text)) return *kind;
  std::vector<std::string> names;
  for (LinkKind k : kAllLinkKinds) names.emplace_back(to_string(k));
  node.fail("unknown link kind '" + text + "'; valid kinds are " + join_choices(names));
}

Pairing parse_pairing(const ConfigNode& link) {
  auto node = link.optional_child("pairing");
  if (!node) return Pairing::automatic;
  const std::string text = node->as_string();
  auto pairing = pairing_from_string(text);
  if (!pairing) node->fail("unknown pairing '" + text + "'; valid pairings are " + std::string(kPairingNames));
  return *pairing;
}

LinkDecl parse_link(const ConfigNode& node, const LinkKindTable& link_kinds) {
  expect_section(node, "links[]");
  const ConfigNode between = node.child("between");
  auto ends = between.elements();
  if (ends.size() != 2) {
    between.fail("expected exactly two part selectors, e.g. [\"gpu[*]\", nvswitch]; got " +
                 std::to_string(ends.size()));
  }
  LinkDecl link{{}, ends, link_kinds.defaults(parse_link_kind(node)), parse_pairing(node), node};
  for (const ConfigNode& end : ends) {
    try {
      link.ends.push_back(parse_part_selector(end.as_string()));
    } catch (const std::invalid_argument& e) {
      end.fail(e.what());
    }
  }
  if (node.has("bandwidth")) link.spec.bandwidth = node.bandwidth("bandwidth");
  if (node.has("latency")) link.spec.latency = node.time("latency");
  return link;
}

// A template's links may only name that template's own parts.
void check_local_end(const ConfigNode& at, const PartSelector& sel, const TemplateDecl& tmpl) {
  if (sel.nodes) at.fail("'node[...]' selectors belong in system-level links; a template names its own parts");
  const GroupDecl* group = find_group(tmpl.groups, sel.group);
  if (group == nullptr) {
    at.fail("no part '" + sel.group + "' in template '" + tmpl.name + "'; its parts are " + group_names(tmpl.groups));
  }
  if (!select_indices(sel.indices, group->count)) {
    at.fail("'" + sel.text + "' is out of range; template '" + tmpl.name + "' has " +
            describe_group(group->name, group->count));
  }
}

TemplateDecl parse_template(const std::string& name, const ConfigNode& declared, const DeviceCatalogue& catalogue,
                            const LinkKindTable& link_kinds) {
  check_identifier(name, declared, "template");
  const ConfigNode node = resolve_template(name, declared);
  expect_section(node, "system.node_templates.<t>");
  TemplateDecl tmpl{name, parse_groups(node.child("parts"), catalogue), {}, node};
  if (auto links = node.optional_child("links")) tmpl.links = parse_links(*links, link_kinds);
  for (const LinkDecl& link : tmpl.links) {
    for (std::size_t i = 0; i < link.ends.size(); ++i) check_local_end(link.end_nodes[i], link.ends[i], tmpl);
  }
  return tmpl;
}

}  // namespace

const GroupDecl* find_group(const std::vector<GroupDecl>& groups, const std::string& name) {
  for (const GroupDecl& g : groups) {
    if (g.name == name) return &g;
  }
  return nullptr;
}

std::string group_names(const std::vector<GroupDecl>& groups) {
  std::vector<std::string> names;
  for (const GroupDecl& g : groups) names.push_back(g.name);
  return names.empty() ? "(none)" : join_choices(names);
}

std::vector<GroupDecl> parse_groups(const ConfigNode& parts, const DeviceCatalogue& catalogue) {
  std::vector<GroupDecl> out;
  std::set<std::string> seen;
  for (const auto& [name, node] : parts.entries()) {
    // yaml-cpp keeps repeated keys, so a copy-pasted group would otherwise pass.
    if (!seen.insert(name).second) node.fail("part group '" + name + "' is declared twice; part names must be unique");
    out.push_back(parse_group(name, node, catalogue));
  }
  return out;
}

std::vector<LinkDecl> parse_links(const ConfigNode& links, const LinkKindTable& link_kinds) {
  std::vector<LinkDecl> out;
  for (const ConfigNode& node : links.elements()) out.push_back(parse_link(node, link_kinds));
  return out;
}

std::vector<TemplateDecl> parse_templates(const ConfigNode& templates, const DeviceCatalogue& catalogue,
                                          const LinkKindTable& link_kinds) {
  std::vector<TemplateDecl> out;
  std::set<std::string> seen;
  for (const auto& [name, node] : templates.entries()) {
    if (!seen.insert(name).second) node.fail("template '" + name + "' is declared twice");
    out.push_back(parse_template(name, node, catalogue, link_kinds));
  }
  return out;
}

}  // namespace simctl
