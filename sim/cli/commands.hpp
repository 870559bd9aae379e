#pragma once
#include <ostream>
#include <string>

namespace simctl {

inline constexpr const char* kVersion = "0.1.0";

// Each returns the process exit code; bad input throws ConfigError.
int run_command(const std::string& config_path, const std::string& json_path, std::ostream& out);
int check_command(const std::string& config_path, std::ostream& out);

}  // namespace simctl
