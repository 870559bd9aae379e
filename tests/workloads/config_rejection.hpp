#pragma once
// Run configs written by tests to a per-process temporary folder, and the
// one-line error loading one fails with (failing the test if it loads).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/config/config_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl::testing {

// `folder` names the test file's own temporary folder ("simctl_plans").
inline std::string write_test_config(const std::string& folder, const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / (folder + "_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << text;
  return file.string();
}

inline std::string load_rejection(const std::string& path) {
  try {
    load_scenario(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("accepted " << path);
  return {};
}

}  // namespace simctl::testing
