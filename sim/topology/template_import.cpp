#include "sim/topology/template_import.hpp"

#include <algorithm>
#include <filesystem>
#include <vector>

#include "sim/config/config_schema.hpp"
#include "sim/config/path_check.hpp"

namespace simctl {
namespace {

constexpr std::size_t kMaxImportDepth = 8;  // no real system nests templates this deep

ConfigNode load_imported(const ConfigNode& node) {
  const ConfigNode path_node = node.child("import");
  const std::filesystem::path base = std::filesystem::path(node.file()).parent_path();
  const std::filesystem::path path = base / path_node.as_string();
  if (const std::string why = file_problem(path); !why.empty()) {
    path_node.fail("no system file '" + path.string() + "' to import: it " + why + " (paths are relative to '" +
                   (base.empty() ? std::string(".") : base.string()) + "')");
  }
  const ConfigNode root = ConfigNode::load_file(path.string());
  expect_section(root, "system_file");
  return root.child("system");
}

// One link of an import chain: the file a template was found in and its name.
std::string chain_link(const ConfigNode& node, const std::string& name) { return node.file() + " (" + name + ")"; }

// The same link however its file's path was spelled ("a/../b.yaml").
std::string chain_key(const ConfigNode& node, const std::string& name) {
  std::error_code ec;
  const auto canonical = std::filesystem::weakly_canonical(node.file(), ec);
  return (ec ? node.file() : canonical.string()) + "\n" + name;
}

std::string join_chain(const std::vector<std::string>& chain) {
  std::string out;
  for (const auto& link : chain) out += (out.empty() ? "" : " -> ") + link;
  return out;
}

// `chain` holds the templates followed so far, so a cycle is named as such
// (with its links) and a long chain is cut off before it costs anything.
struct ImportChain {
  std::vector<std::string> links;  // as the user wrote the paths, for messages
  std::vector<std::string> keys;   // canonical, to find a cycle
};

ConfigNode resolve(const std::string& name, const ConfigNode& node, ImportChain& chain) {
  if (!node.is_map() || !node.has("import")) return node;
  expect_section(node, "system.node_templates.<t>:import");
  const std::string key = chain_key(node, name);
  const bool seen = std::find(chain.keys.begin(), chain.keys.end(), key) != chain.keys.end();
  chain.keys.push_back(key);
  chain.links.push_back(chain_link(node, name));
  if (seen) node.child("import").fail("templates import each other in a cycle: " + join_chain(chain.links));
  if (chain.links.size() > kMaxImportDepth) {
    node.child("import").fail("the chain of template imports is more than " + std::to_string(kMaxImportDepth) +
                              " levels deep, the most simctl follows: " + join_chain(chain.links) + " -> ...");
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
  return resolve(wanted, templates->child(wanted), chain);
}

}  // namespace

ConfigNode resolve_template(const std::string& name, const ConfigNode& node) {
  ImportChain chain;
  return resolve(name, node, chain);
}

}  // namespace simctl
