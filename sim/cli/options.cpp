#include "sim/cli/options.hpp"

#include "sim/cli/command.hpp"

namespace po = boost::program_options;

namespace simctl {

ParsedOptions parse_command_options(const std::string& usage, const std::vector<std::string>& args,
                                    const po::options_description& named, std::size_t positional_count) {
  po::options_description all;
  all.add(named);
  all.add_options()("positional", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("positional", -1);
  ParsedOptions parsed;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), parsed.values);
  po::notify(parsed.values);
  if (parsed.values.count("positional"))
    parsed.positionals = parsed.values["positional"].as<std::vector<std::string>>();
  if (parsed.positionals.size() != positional_count) {
    throw UsageError("expected: simctl " + usage + " (e.g. simctl " + usage.substr(0, usage.find(' ')) +
                     " configs/dgx_h100_x8.yaml)");
  }
  return parsed;
}

}  // namespace simctl
