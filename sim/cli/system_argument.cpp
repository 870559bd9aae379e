#include "sim/cli/system_argument.hpp"

#include <filesystem>

#include "sim/config/config_node.hpp"
#include "sim/config/path_check.hpp"
#include "sim/topology/system_config.hpp"

namespace simctl {

System load_system_argument(const std::string& path, const DeviceCatalogue& catalogue,
                            const LinkKindTable& link_kinds) {
  const ConfigNode root = ConfigNode::load_file(path);
  const ConfigNode value = root.child("system");
  if (value.is_map()) return load_system(value, catalogue, link_kinds);
  const auto file = std::filesystem::path(root.file()).parent_path() / value.as_string();
  if (const std::string why = file_problem(file); !why.empty()) value.fail("file '" + file.string() + "' " + why);
  return load_system_file(file.string(), catalogue, link_kinds);
}

}  // namespace simctl
