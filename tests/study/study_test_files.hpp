#pragma once
// Study files for tests, written to a fresh temp folder; their base is the
// 22B config (replays in about 0.05 s) by absolute path.
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

namespace simctl::testing {

inline std::filesystem::path study_temp_dir() {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_study_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir;
}

inline std::string base_config() { return std::filesystem::absolute("configs/dgx_a100x8_megatron_22b.yaml").string(); }

// Writes `body` (the axes and anything else) under a title and base line.
inline std::string write_study(const std::string& name, const std::string& body) {
  const auto file = study_temp_dir() / name;
  std::ofstream(file) << "study: test study\nbase: " << base_config() << "\n" << body;
  return file.string();
}

// Recompute × a zip of micro-batch and global batch: 8 points, of which
// micro-batch 3 is invalid (4 is no multiple of it) and micro-batch 16
// with selective recompute does not fit in 80 GB.
inline const char* kTinyAxes =
    "axes:\n"
    "  - {field: workload.activation_recompute, values: [selective, full]}\n"
    "  - zip:\n"
    "      - {field: workload.micro_batch, values: [1, 2, 3, 16]}\n"
    "      - {field: workload.global_batch, values: [4, 4, 4, 16]}\n";

}  // namespace simctl::testing
