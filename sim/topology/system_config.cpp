#include "sim/topology/system_config.hpp"

#include <map>
#include <stdexcept>

#include "sim/config/config_schema.hpp"
#include "sim/topology/fabric_spec.hpp"
#include "sim/topology/fat_tree.hpp"
#include "sim/topology/system_checks.hpp"
#include "sim/topology/system_decls.hpp"

namespace simctl {
namespace {

using GroupParts = std::map<std::string, std::vector<EndpointId>>;  // group -> parts by index

struct NodeInstance {
  const TemplateDecl* tmpl;
  GroupParts parts;
};

// Everything expanded so far; system-level links look nodes up in here.
struct Build {
  System system;
  std::vector<NodeInstance> nodes;
  std::vector<GroupDecl> system_groups;
  GroupParts system_parts;
  GpuDeclarations gpu_decls;
};

std::string part_name(const std::string& prefix, const GroupDecl& group, int index) {
  return prefix + group.name + (group.count == 1 ? "" : std::to_string(index));
}

std::vector<EndpointId> add_group(Build& b, const GroupDecl& group, int node, const std::string& prefix) {
  std::vector<EndpointId> ids;
  if (group.variant) {
    try {
      b.system.add_gpu_variant(*group.variant);
    } catch (const std::invalid_argument& e) {
      group.where.child("variant").fail(std::string(e.what()) + "; give each variant a name of its own");
    }
  }
  for (int i = 0; i < group.count; ++i) {
    Part part{group.kind, part_name(prefix, group, i), group.model, node, group.name, i, group.capacity_bytes};
    part.architecture = group.architecture;
    try {
      ids.push_back(b.system.add_part(std::move(part)));
    } catch (const std::invalid_argument& e) {
      group.where.fail(std::string(e.what()) + " (group '" + group.name + "' names its parts " + prefix + group.name +
                       "<index>); rename one of the groups");
    }
    if (group.kind == PartKind::gpu) b.gpu_decls.emplace(ids.back(), group.where);
  }
  return ids;
}

GroupParts add_groups(Build& b, const std::vector<GroupDecl>& groups, int node, const std::string& prefix) {
  GroupParts out;
  for (const GroupDecl& group : groups) out[group.name] = add_group(b, group, node, prefix);
  return out;
}

// For selectors already checked against the group's size.
std::vector<EndpointId> select_checked(const GroupParts& parts, const PartSelector& sel) {
  const auto& ids = parts.at(sel.group);
  std::vector<EndpointId> out;
  const auto indices = select_indices(sel.indices, static_cast<int>(ids.size()));
  for (int i : indices.value()) out.push_back(ids[i]);
  return out;
}

void add_cables(System& system, const LinkDecl& link, const std::vector<EndpointId>& a,
                const std::vector<EndpointId>& b) {
  try {
    for (const auto& [x, y] : pair_parts(a, b, link.pairing)) system.add_cable(x, y, link.spec);
  } catch (const std::invalid_argument& e) {
    link.where.fail(e.what());
  }
}

void add_node(Build& b, const TemplateDecl& tmpl) {
  const int index = static_cast<int>(b.nodes.size());
  NodeInstance node{&tmpl, add_groups(b, tmpl.groups, index, "node" + std::to_string(index) + ".")};
  for (const LinkDecl& link : tmpl.links) {
    add_cables(b.system, link, select_checked(node.parts, link.ends[0]), select_checked(node.parts, link.ends[1]));
  }
  b.nodes.push_back(std::move(node));
}

const TemplateDecl& find_template(const ConfigNode& name_node, const std::vector<TemplateDecl>& templates) {
  const std::string name = name_node.as_string();
  std::vector<std::string> names;
  for (const TemplateDecl& t : templates) {
    if (t.name == name) return t;
    names.push_back(t.name);
  }
  name_node.fail("unknown node template '" + name + "'; the templates under node_templates are " +
                 (names.empty() ? std::string("(none)") : join_choices(names)));
}

// Limits on what a system may build, checked before each `nodes` entry is
// stamped out, so a typo (a million GPUs) is refused at once rather than
// after minutes and gigabytes. The largest shipped system has about 6,000
// parts; a world is at most 65,536 ranks.
constexpr std::int64_t kMaxNodes = 100'000;
constexpr std::int64_t kMaxParts = 1'000'000;
constexpr std::int64_t kMaxGpus = 131'072;
constexpr std::int64_t kMaxCables = 4'000'000;

struct NodeTotals {
  std::int64_t parts = 0;
  std::int64_t gpus = 0;
};

NodeTotals totals_of(const TemplateDecl& tmpl) {
  NodeTotals t;
  for (const GroupDecl& g : tmpl.groups) {
    t.parts += g.count;
    if (g.kind == PartKind::gpu) t.gpus += g.count;
  }
  return t;
}

void check_size(const ConfigNode& at, const std::string& what, std::int64_t would_have, std::int64_t limit) {
  if (would_have <= limit) return;
  at.fail("this system would have " + std::to_string(would_have) + " " + what + ", more than the " +
          std::to_string(limit) + " simctl builds");
}

void add_nodes(Build& b, const ConfigNode& nodes, const std::vector<TemplateDecl>& templates) {
  std::int64_t gpus = 0;
  for (const ConfigNode& entry : nodes.elements()) {
    expect_section(entry, "system.nodes[]");
    const TemplateDecl& tmpl = find_template(entry.child("template"), templates);
    const std::int64_t count = entry.has("count") ? entry.positive_integer("count") : 1;
    const ConfigNode at = entry.has("count") ? entry.child("count") : entry;
    const NodeTotals per_node = totals_of(tmpl);
    check_size(at, "nodes", static_cast<std::int64_t>(b.nodes.size()) + count, kMaxNodes);
    check_size(at, "GPUs", gpus + count * per_node.gpus, kMaxGpus);
    check_size(at, "parts", static_cast<std::int64_t>(b.system.num_parts()) + count * per_node.parts, kMaxParts);
    gpus += count * per_node.gpus;
    const auto cables_before = static_cast<std::int64_t>(b.system.num_cables());
    add_node(b, tmpl);
    const auto cables_per_node = static_cast<std::int64_t>(b.system.num_cables()) - cables_before;
    check_size(at, "cables", cables_before + count * cables_per_node, kMaxCables);
    for (std::int64_t k = 1; k < count; ++k) add_node(b, tmpl);
  }
}

std::vector<EndpointId> select_system_group(const Build& b, const ConfigNode& at, const PartSelector& sel) {
  const GroupDecl* group = find_group(b.system_groups, sel.group);
  if (group == nullptr) {
    at.fail("no part '" + sel.group + "' at the system level; its parts are " + group_names(b.system_groups) +
            " (name parts inside nodes as 'node[i].group[j]')");
  }
  if (!select_indices(sel.indices, group->count)) {
    at.fail("'" + sel.text + "' is out of range; the system level has " + describe_group(group->name, group->count));
  }
  return select_checked(b.system_parts, sel);
}

std::vector<EndpointId> select_in_nodes(const Build& b, const ConfigNode& at, const PartSelector& sel) {
  const int num_nodes = static_cast<int>(b.nodes.size());
  const auto node_indices = select_indices(*sel.nodes, num_nodes);
  if (!node_indices)
    at.fail("'" + sel.text + "' names nodes past the last; the system has " + describe_group("node", num_nodes));
  std::vector<EndpointId> out;
  for (int n : *node_indices) {
    const TemplateDecl& tmpl = *b.nodes[n].tmpl;
    const GroupDecl* group = find_group(tmpl.groups, sel.group);
    const std::string where = "node " + std::to_string(n) + " (template '" + tmpl.name + "')";
    if (group == nullptr)
      at.fail(where + " has no part '" + sel.group + "'; its parts are " + group_names(tmpl.groups));
    if (!select_indices(sel.indices, group->count)) {
      at.fail("'" + sel.text + "' is out of range; " + where + " has " + describe_group(group->name, group->count));
    }
    for (EndpointId id : select_checked(b.nodes[n].parts, sel)) out.push_back(id);
  }
  return out;
}

std::vector<EndpointId> select_system_end(const Build& b, const ConfigNode& at, const PartSelector& sel) {
  return sel.nodes ? select_in_nodes(b, at, sel) : select_system_group(b, at, sel);
}

void add_system_parts(Build& b, const ConfigNode& parts, const DeviceCatalogue& catalogue) {
  b.system_groups = parse_groups(parts, catalogue);
  if (const GroupDecl* reserved = find_group(b.system_groups, "node")) {
    reserved->where.fail("the group name 'node' is reserved for selectors such as 'node[0].gpu[1]'; choose another");
  }
  b.system_parts = add_groups(b, b.system_groups, kNoNode, "");
}

void add_system_links(Build& b, const ConfigNode& links, const LinkKindTable& link_kinds) {
  for (const LinkDecl& link : parse_links(links, link_kinds)) {
    add_cables(b.system, link, select_system_end(b, link.end_nodes[0], link.ends[0]),
               select_system_end(b, link.end_nodes[1], link.ends[1]));
  }
}

// Each node's NICs that join the fabric, in rail order.
std::vector<std::vector<EndpointId>> fabric_nics(const Build& b, const FabricSpec& spec) {
  const ConfigNode at = spec.where.optional_child("nics").value_or(spec.where);
  if (b.nodes.empty()) at.fail("a fabric joins nodes, and the system has none; list them under 'nodes'");
  std::vector<std::vector<EndpointId>> out;
  for (std::size_t n = 0; n < b.nodes.size(); ++n) {
    const TemplateDecl& tmpl = *b.nodes[n].tmpl;
    const GroupDecl* group = find_group(tmpl.groups, spec.nics.group);
    const std::string where = "node " + std::to_string(n) + " (template '" + tmpl.name + "')";
    if (group == nullptr)
      at.fail(where + " has no part '" + spec.nics.group + "'; its parts are " + group_names(tmpl.groups));
    if (group->kind != PartKind::nic) {
      at.fail("the fabric joins NICs, but '" + group->name + "' in " + where + " is a " +
              std::string(to_string(group->kind)) + "; name a group of kind nic");
    }
    if (!select_indices(spec.nics.indices, group->count)) {
      at.fail("'" + spec.nics.text + "' is out of range; " + where + " has " +
              describe_group(group->name, group->count));
    }
    out.push_back(select_checked(b.nodes[n].parts, spec.nics));
  }
  return out;
}

void add_fabric(Build& b, const ConfigNode& node, const DeviceCatalogue& catalogue, const LinkKindTable& link_kinds) {
  const FabricSpec spec = parse_fabric(node, link_kinds);
  const auto nics = fabric_nics(b, spec);
  const std::function<Bandwidth(EndpointId)> nic_rate = [&](EndpointId nic) {
    const NicSpec* model = catalogue.find_nic(b.system.part(nic).model);
    return model ? model->fabric_bandwidth : spec.link.bandwidth;
  };
  try {
    build_fat_tree(b.system, spec, nics, nic_rate);
    b.system.set_fabric_routing(spec.routing);
    b.system.set_queue_pairs(spec.queue_pairs);
  } catch (const FabricError& e) {
    spec.where.optional_child(e.field).value_or(spec.where).fail(e.what());
  }
}

// A disk is slower than the port it sits on: its cables carry at most its
// catalogue read rate (the cable's protocol efficiency is divided out, so the
// effective rate is the disk's), and each read pays its access latency.
// Readers of one disk then share its rate, as they do in practice.
void cap_storage_cables(System& system, const DeviceCatalogue& catalogue) {
  for (std::uint32_t c = 0; c < system.num_cables(); ++c) {
    for (EndpointId end : {system.cable(c).a, system.cable(c).b}) {
      const StorageSpec* disk = catalogue.find_storage(system.part(end).model);
      if (system.part(end).kind != PartKind::storage || disk == nullptr) continue;
      const double efficiency = system.cable(c).spec.efficiency;
      system.cap_cable(c, Bandwidth{disk->read_bandwidth.bytes_per_s / efficiency}, disk->read_latency);
    }
  }
}

}  // namespace

System load_system(const ConfigNode& system_node, const DeviceCatalogue& catalogue, const LinkKindTable& link_kinds) {
  expect_section(system_node, "system");
  Build b{System(system_node.string("name")), {}, {}, {}, {}};
  std::vector<TemplateDecl> templates;
  if (auto node = system_node.optional_child("node_templates"))
    templates = parse_templates(*node, catalogue, link_kinds);
  if (auto node = system_node.optional_child("nodes")) add_nodes(b, *node, templates);
  if (auto node = system_node.optional_child("fabric")) add_fabric(b, *node, catalogue, link_kinds);
  if (auto node = system_node.optional_child("parts")) add_system_parts(b, *node, catalogue);
  if (auto node = system_node.optional_child("links")) add_system_links(b, *node, link_kinds);
  check_gpus_connected(b.system, b.gpu_decls, system_node);
  cap_storage_cables(b.system, catalogue);
  return std::move(b.system);
}

System load_system_file(const std::string& path, const DeviceCatalogue& catalogue, const LinkKindTable& link_kinds) {
  const ConfigNode root = ConfigNode::load_file(path);
  expect_section(root, "system_file");
  return load_system(root.child("system"), catalogue, link_kinds);
}

}  // namespace simctl
