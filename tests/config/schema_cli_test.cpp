// End to end: simctl's loaders accept exactly the keys of the schema file it
// finds in its data folder. A data folder whose schema lacks a field makes
// simctl reject that field, so no loader keeps a key list of its own.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "tests/cli/run_binary.hpp"

using simctl::testing::run_simctl;
using simctl::testing::write_temp_config;

namespace {

namespace fs = std::filesystem;

// A data folder like the source tree, whose schema lacks the line of `field`
// in section `section` (the first such line after the section's header).
fs::path data_dir_without(const std::string& section, const std::string& field) {
  const fs::path source = SIMCTL_SOURCE_DIR;
  const fs::path dir = fs::temp_directory_path() / ("simctl_schema_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "sim" / "config");
  for (const char* data : {"models", "workloads"}) fs::create_directory_symlink(source / data, dir / data);
  std::ifstream in(source / "sim" / "config" / "config_schema.yaml");
  std::ofstream out(dir / "sim" / "config" / "config_schema.yaml");
  bool in_section = false, removed = false;
  for (std::string line; std::getline(in, line);) {
    if (line == "  " + section + ":") in_section = true;
    if (in_section && !removed && line.find("{name: " + field + ",") != std::string::npos) {
      removed = true;
      continue;
    }
    out << line << "\n";
  }
  REQUIRE(removed);
  return dir;
}

// Runs simctl with SIMCTL_DATA_DIR set to `data_dir`, then restores it.
simctl::testing::CommandResult run_with_data(const fs::path& data_dir, const std::string& args) {
  const char* before = std::getenv("SIMCTL_DATA_DIR");
  const std::string saved = before ? before : "";
  ::setenv("SIMCTL_DATA_DIR", data_dir.c_str(), 1);
  auto result = run_simctl(args);
  if (before) {
    ::setenv("SIMCTL_DATA_DIR", saved.c_str(), 1);
  } else {
    ::unsetenv("SIMCTL_DATA_DIR");
  }
  return result;
}

}  // namespace

TEST_CASE("a field removed from the schema file is rejected by simctl check", "[config][schema][cli]") {
  const std::string config = write_temp_config(
      "dropout.yaml", "system: " + (fs::path(SIMCTL_SOURCE_DIR) / "configs/systems/h100_sxm_x1.yaml").string() +
                          "\nworkload:\n  model: gpt2-small\n  micro_batch: 1\n  dropout: 0.1\n");
  REQUIRE(run_with_data(SIMCTL_SOURCE_DIR, "check " + config).exit_code == 0);

  const fs::path data = data_dir_without("workload", "dropout");
  const auto result = run_with_data(data, "check " + config);
  fs::remove_all(data);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("dropout.yaml:5:3: error: field 'workload.dropout': unknown field"));
  CHECK_THAT(result.err, Catch::Contains("valid fields here are task, model, parallel"));
  CHECK_THAT(result.err, !Catch::Contains("dropout or") && !Catch::Contains("dropout,"));
}

TEST_CASE("a trace field removed from the schema file is rejected when replaying", "[config][schema][cli]") {
  const fs::path trace = fs::path(SIMCTL_SOURCE_DIR) / "configs/traces";
  const std::string config = write_temp_config(
      "replay.yaml", "system: " + (fs::path(SIMCTL_SOURCE_DIR) / "configs/systems/dgx_h100.yaml").string() +
                         "\nworkload: {trace: " + (trace / "pp2_dp2_example.json").string() + "}\n");
  REQUIRE(run_with_data(SIMCTL_SOURCE_DIR, "check " + config).exit_code == 0);

  const fs::path data = data_dir_without("trace_file.totals", "samples");
  const auto result = run_with_data(data, "check " + config);
  fs::remove_all(data);
  CHECK(result.exit_code == 2);
  CHECK_THAT(result.err, Catch::Contains("field 'totals.samples': unknown field; valid fields here are model_flops, "
                                         "tokens, parameters"));
}
