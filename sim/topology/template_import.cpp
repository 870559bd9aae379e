#include "sim/topology/template_import.hpp"

#include <filesystem>

#include "sim/config/config_schema.hpp"

namespace simctl {
namespace {

constexpr int kMaxImportDepth = 8;  // a chain this long is a mistake, most likely a cycle

ConfigNode load_imported(const ConfigNode& node) {
  const ConfigNode path_node = node.child("import");
  const std::filesystem::path base = std::filesystem::path(node.file()).parent_path();
  const std::filesystem::path path = base / path_node.as_string();
  if (!std::filesystem::is_regular_file(path)) {
    path_node.fail("no system file '" + path.string() + "' to import (paths are relative to '" +
                   (base.empty() ? std::string(".") : base.string()) + "')");
  }
  const ConfigNode root = ConfigNode::load_file(path.string());
  expect_section(root, "system_file");
  return root.child("system");
}

ConfigNode resolve(const std::string& name, const ConfigNode& node, int depth) {
  if (!node.is_map() || !node.has("import")) return node;
  expect_section(node, "system.node_templates.<t>:import");
  if (depth >= kMaxImportDepth) {
    node.child("import").fail("templates import each other more than " + std::to_string(kMaxImportDepth) +
                              " levels deep; is there a cycle?");
  }
  const std::string wanted = node.string_or("template", name);
  const ConfigNode system = load_imported(node);
  const auto templates = system.optional_child("node_templates");
  if (!templates || !templates->has(wanted)) {
    std::vector<std::string> names;
    if (templates) {
      for (const auto& entry : templates->entries()) names.push_back(entry.first);
    }
    (node.has("template") ? node.child("template") : node.child("import"))
        .fail("'" + node.string("import") + "' has no node template '" + wanted + "'; its templates are " +
              (names.empty() ? std::string("(none)") : join_choices(names)));
  }
  return resolve(wanted, templates->child(wanted), depth + 1);
}

}  // namespace

ConfigNode resolve_template(const std::string& name, const ConfigNode& node) { return resolve(name, node, 0); }

}  // namespace simctl
