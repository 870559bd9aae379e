#pragma once
// A subcommand of simctl. Each lives in its own file with its named options,
// so adding a command touches only that file and the registry; run_main
// parses every command's arguments, and prints its --help, from the one
// options_description the command's `options` builds.
#include <boost/program_options/options_description.hpp>
#include <cstddef>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace simctl {

inline constexpr const char* kVersion = "0.1.0";

struct ParsedOptions;

// A command's `positionals` when it takes one or more (files to import).
inline constexpr std::size_t kOneOrMorePositionals = static_cast<std::size_t>(-1);

struct Command {
  const char* name;
  const char* usage;        // "run CONFIG [options]"
  const char* summary;      // one line for `simctl --help`
  std::size_t positionals;  // plain arguments `usage` names (CONFIG, SRC, ...)
  // The named options, each with a description (default and units included).
  boost::program_options::options_description (*options)();
  // Returns the exit code. Bad input throws ConfigError (exit 2); usage
  // errors throw boost::program_options::error or UsageError (exit 2).
  int (*run)(const ParsedOptions& options, std::ostream& out);
};

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// Every command, in the order `--help` lists them (registry.cpp).
const std::vector<Command>& all_commands();

int run_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err);

// `--gpu MODEL` of the import commands: UsageError listing the catalogue's
// GPU models unless `model` is one (import_command.cpp).
void require_catalogue_gpu(const std::string& model);

}  // namespace simctl
