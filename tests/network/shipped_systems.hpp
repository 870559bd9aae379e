#pragma once
// The shipped system configs (configs/systems/), each loaded once per test
// binary with the catalogue and link kinds.
#include <map>
#include <string>

#include "models/devices/device_catalogue.hpp"
#include "models/network/link_kinds.hpp"
#include "sim/config/data_root.hpp"
#include "sim/topology/system_config.hpp"

namespace simctl::test {

inline const System& system_named(const std::string& file) {
  static const DeviceCatalogue catalogue = DeviceCatalogue::load();
  static const LinkKindTable link_kinds = LinkKindTable::load();
  static std::map<std::string, System> loaded;
  auto it = loaded.find(file);
  if (it == loaded.end()) {
    it = loaded.emplace(file, load_system_file(data_root() + "/configs/systems/" + file, catalogue, link_kinds)).first;
  }
  return it->second;
}

}  // namespace simctl::test
