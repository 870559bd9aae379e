#pragma once
// Whether a file a config names can be read, without throwing: the
// std::filesystem calls that throw (a name longer than the OS allows, a path
// through a regular file) would escape as filesystem_error instead of the
// ConfigError that names the field (found by fuzz_run_config and fuzz_study).
#include <filesystem>
#include <string>
#include <system_error>

namespace simctl {

// "" when `path` is a regular file; else why not, to follow the quoted path
// in a message: "does not exist", "is not a file", or "cannot be used: <the
// OS's reason>".
inline std::string file_problem(const std::filesystem::path& path) {
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec)) return "";
  if (ec && ec != std::errc::no_such_file_or_directory) return "cannot be used: " + ec.message();
  return std::filesystem::exists(path, ec) ? "is not a file" : "does not exist";
}

}  // namespace simctl
