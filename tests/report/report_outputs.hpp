#pragma once
// Runs the simctl binary on a config with --json, --csv and --trace into a
// fresh temp folder, and reads back what it wrote.
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "tests/cli/run_binary.hpp"

namespace simctl::testing {

inline std::string source_path(const std::string& relative) { return std::string(SIMCTL_SOURCE_DIR) + "/" + relative; }

// A fresh folder per test process and name, so parallel ctest runs never
// share files; removed when the value goes out of scope.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() / ("simctl_report_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(TempDir&& other) noexcept : path_(std::exchange(other.path_, {})) {}
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  TempDir& operator=(TempDir&&) = delete;
  ~TempDir() {
    std::error_code ignored;
    if (!path_.empty()) std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

struct RunFiles {
  TempDir dir;
  nlohmann::json report;  // --json
  nlohmann::json trace;   // --trace
  std::filesystem::path csv;
};

// `name` labels the folder; `config` is relative to the source tree.
inline RunFiles run_with_outputs(const std::string& name, const std::string& config) {
  RunFiles files{TempDir(name), {}, {}, {}};
  files.csv = files.dir.path() / "csv";
  const auto json = files.dir.path() / "report.json", trace = files.dir.path() / "trace.json";
  const CommandResult result = run_simctl("run " + source_path(config) + " --json " + json.string() + " --csv " +
                                          files.csv.string() + " --trace " + trace.string());
  if (result.exit_code != 0) {
    throw std::runtime_error("simctl run " + config + " exited " + std::to_string(result.exit_code) + ": " +
                             result.err);
  }
  files.report = nlohmann::json::parse(read_text(json));
  files.trace = nlohmann::json::parse(read_text(trace));
  return files;
}

// A CSV table as rows of column -> text; handles the quoting render_csv uses.
using CsvRow = std::map<std::string, std::string>;

inline std::vector<std::string> split_csv_line(const std::string& line) {
  std::vector<std::string> fields(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      fields.back() += '"';
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      fields.emplace_back();
    } else {
      fields.back() += c;
    }
  }
  return fields;
}

inline std::vector<CsvRow> read_csv(const std::filesystem::path& file) {
  std::istringstream in(read_text(file));
  std::string line;
  std::vector<CsvRow> rows;
  if (!std::getline(in, line)) return rows;
  const std::vector<std::string> header = split_csv_line(line);
  while (std::getline(in, line)) {
    const std::vector<std::string> fields = split_csv_line(line);
    if (fields.size() != header.size()) {
      throw std::runtime_error(file.string() + ": a row has " + std::to_string(fields.size()) + " fields, the header " +
                               std::to_string(header.size()));
    }
    CsvRow row;
    for (std::size_t i = 0; i < header.size(); ++i) row[header[i]] = fields[i];
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace simctl::testing
