#pragma once
// The message of the ConfigError a call throws; empty when it throws none.
#include <functional>
#include <string>

#include "sim/config/config_error.hpp"

namespace simctl::test {

inline std::string config_error_message(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace simctl::test
