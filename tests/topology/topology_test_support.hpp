#pragma once
// Shared loaders for the topology tests: the shipped catalogues, and systems
// read from YAML text or from files under the repository root.
#include <functional>
#include <string>

#include "models/devices/device_catalogue.hpp"
#include "models/network/link_kinds.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/data_root.hpp"
#include "sim/topology/system_config.hpp"
#include "tests/config/config_error_of.hpp"
#include "tests/topology/dgx_h100_x4_ndr_yaml.hpp"

namespace simctl::test {

inline const DeviceCatalogue& catalogue() {
  static const DeviceCatalogue loaded = DeviceCatalogue::load();  // read-only after first use
  return loaded;
}

inline const LinkKindTable& link_kinds() {
  static const LinkKindTable loaded = LinkKindTable::load();  // read-only after first use
  return loaded;
}

inline System system_from_text(const std::string& yaml, const std::string& label = "test.yaml") {
  const ConfigNode root = ConfigNode::load_string(yaml, label);
  return load_system(root.child("system"), catalogue(), link_kinds());
}

inline System system_from_file(const std::string& path) { return load_system_file(path, catalogue(), link_kinds()); }

// That cluster with its fabric's routing named (dgx_h100_x4_ndr_yaml.hpp).
inline System dgx_h100_x4_ndr_routed(const std::string& routing) {
  return system_from_text(dgx_h100_x4_ndr_yaml(data_root(), routing));
}

// The message of the ConfigError `f` throws; empty when it throws none.
inline std::string config_error_of(const std::function<void()>& f) { return config_error_message(f); }

}  // namespace simctl::test
