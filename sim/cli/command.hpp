#pragma once
// A subcommand of simctl. Each lives in its own file and parses its own
// options, so adding a command touches only that file and the registry.
#include <ostream>
#include <string>
#include <vector>

namespace simctl {

inline constexpr const char* kVersion = "0.1.0";

struct Command {
  const char* name;
  const char* usage;    // "run CONFIG [--json FILE]"
  const char* summary;  // one line for `simctl --help`
  // Returns the exit code. Bad input throws ConfigError (exit 2); usage
  // errors throw boost::program_options::error or UsageError (exit 2).
  int (*run)(const std::vector<std::string>& args, std::ostream& out);
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every command, in the order `--help` lists them (registry.cpp).
const std::vector<Command>& all_commands();

int run_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

}  // namespace simctl
