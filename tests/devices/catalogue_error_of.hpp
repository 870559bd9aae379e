#pragma once
// The message a catalogue text is refused with, or "no error".
#include <string>

#include "models/devices/device_catalogue.hpp"

namespace simctl::testing {

inline std::string catalogue_error_of(const std::string& yaml) {
  try {
    DeviceCatalogue::from_yaml(yaml, "bad.yaml");
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "no error";
}

}  // namespace simctl::testing
