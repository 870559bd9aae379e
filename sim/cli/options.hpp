#pragma once
// Option parsing and help for subcommands: the plain arguments plus the
// command's named options, with errors that say what the command expects.
#include <boost/program_options.hpp>
#include <ostream>
#include <string>
#include <vector>

#include "sim/cli/command.hpp"

namespace simctl {

struct ParsedOptions {
  boost::program_options::variables_map values;
  std::vector<std::string> positionals;
  bool help = false;  // -h/--help was given: print help_text, run nothing
};

// Parses `args` (after the command name) against `named`; collects plain
// arguments in order and checks there are exactly `command.positionals`
// (unless help was asked for).
ParsedOptions parse_command_options(const Command& command, const std::vector<std::string>& args,
                                    const boost::program_options::options_description& named);

// The value of string option `name`, or "" when it was not given.
std::string string_option(const ParsedOptions& options, const char* name);

// The options of `named` (groups flattened) as po prints them: one per line,
// with its value name, default and description wrapped at `line_length`.
std::string options_text(const boost::program_options::options_description& named, unsigned line_length);

// `simctl <command> --help`: usage, summary and every option of `named`.
void print_command_help(const Command& command, const boost::program_options::options_description& named,
                        std::ostream& out);

}  // namespace simctl
