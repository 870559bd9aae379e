#pragma once
// Runs the built simctl binary as a user would and captures what it prints.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace simctl::testing {

struct CommandResult {
  int exit_code = -1;
  std::string out;
  std::string err;
};

inline std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

inline CommandResult run_simctl(const std::string& args) {
  const auto dir = std::filesystem::temp_directory_path();
  const auto out = dir / ("simctl_out_" + std::to_string(::getpid()));
  const auto err = dir / ("simctl_err_" + std::to_string(::getpid()));
  const std::string command = std::string(SIMCTL_BINARY) + " " + args + " >" + out.string() + " 2>" + err.string();
  const int status = std::system(command.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = read_text(out);
  r.err = read_text(err);
  std::filesystem::remove(out);
  std::filesystem::remove(err);
  return r;
}

// Writes `text` to a fresh file in the temp folder and returns its path.
inline std::string write_temp_config(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_cli_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / name;
  std::ofstream(file) << text;
  return file.string();
}

}  // namespace simctl::testing
