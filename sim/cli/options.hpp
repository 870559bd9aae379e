#pragma once
// Shared option parsing for subcommands: one positional CONFIG plus named
// options, with errors that say what the command expects.
#include <boost/program_options.hpp>
#include <string>
#include <vector>

namespace simctl {

struct ParsedOptions {
  boost::program_options::variables_map values;
  std::vector<std::string> positionals;
};

// Parses `args` (after the command name) against `named`; collects plain
// arguments in order and checks there are exactly `positional_count`.
ParsedOptions parse_command_options(const std::string& usage, const std::vector<std::string>& args,
                                    const boost::program_options::options_description& named,
                                    std::size_t positional_count);

}  // namespace simctl
