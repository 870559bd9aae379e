#pragma once
// The committed docs/accuracy.md and README.md, and their generated blocks.
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "sim/config/data_root.hpp"

namespace simctl::testing {

inline std::string read_data_file(const std::string& relative) {
  std::ifstream in(std::filesystem::path(data_root()) / relative);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline constexpr const char* kRegenerate =
    "regenerate with\n  build/sim/accuracy/simctl-accuracy-report --update docs/accuracy.md README.md";

}  // namespace simctl::testing
