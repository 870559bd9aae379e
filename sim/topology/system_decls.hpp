#pragma once
// The declarations of a system config, parsed and checked field by field but
// not yet expanded into parts and cables. Each keeps its ConfigNode so that
// later checks (expansion, connectivity) can still point at the source line.
#include <string>
#include <vector>

#include "models/devices/device_catalogue.hpp"
#include "models/network/link_kinds.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/pairing.hpp"
#include "sim/topology/part.hpp"
#include "sim/topology/part_selector.hpp"

namespace simctl {

struct GroupDecl {
  std::string name;
  PartKind kind;
  std::string model;
  int count;
  Bytes capacity_bytes;
  ConfigNode where;
  std::string architecture = {};  // GPUs: their catalogue entry's
  // GPUs declared as a variant of their catalogue entry (`variant:`): the
  // derived part, whose id is then `model`.
  std::optional<GpuSpec> variant = {};
};

struct LinkDecl {
  std::vector<PartSelector> ends;     // two
  std::vector<ConfigNode> end_nodes;  // where each end was written
  LinkSpec spec;
  Pairing pairing;
  ConfigNode where;
};

struct TemplateDecl {
  std::string name;
  std::vector<GroupDecl> groups;
  std::vector<LinkDecl> links;
  ConfigNode where;
};

// A `parts:` mapping: group name -> {kind, model, count, capacity}.
std::vector<GroupDecl> parse_groups(const ConfigNode& parts, const DeviceCatalogue& catalogue);
// A `links:` list.
std::vector<LinkDecl> parse_links(const ConfigNode& links, const LinkKindTable& link_kinds);
// A `node_templates:` mapping; checks that every link names parts of its own template.
std::vector<TemplateDecl> parse_templates(const ConfigNode& templates, const DeviceCatalogue& catalogue,
                                          const LinkKindTable& link_kinds);

const GroupDecl* find_group(const std::vector<GroupDecl>& groups, const std::string& name);
// "cpu, dram or gpu": the group names, for messages.
std::string group_names(const std::vector<GroupDecl>& groups);

}  // namespace simctl
