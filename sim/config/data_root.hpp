#pragma once
// Where simctl's data (device catalogue, link kinds, model catalogue) lives:
// $SIMCTL_DATA_DIR if set, else the source tree the binary was built from.
#include <cstdlib>
#include <string>

namespace simctl {

inline std::string data_root() {
  if (const char* env = std::getenv("SIMCTL_DATA_DIR"); env != nullptr && *env != '\0') return env;
  return SIMCTL_SOURCE_DIR;
}

}  // namespace simctl
