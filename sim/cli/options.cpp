#include "sim/cli/options.hpp"

#include <sstream>

namespace po = boost::program_options;

namespace simctl {
namespace {

// Every command takes it; it is not one of the command's own options.
po::options_description help_option() {
  po::options_description help;
  help.add_options()("help,h", "show this help and exit");
  return help;
}

}  // namespace

std::string string_option(const ParsedOptions& options, const char* name) {
  return options.values.count(name) ? options.values[name].as<std::string>() : std::string();
}

std::string options_text(const po::options_description& named, unsigned line_length) {
  po::options_description flat(line_length, line_length / 2);  // one list: no group captions or blank lines
  for (const auto& option : named.options()) flat.add(option);
  std::ostringstream text;
  flat.print(text, flat.get_option_column_width() + 1);  // two spaces after the longest, not one
  std::string lines = text.str();
  if (!lines.empty() && lines.back() != '\n') lines += '\n';
  return lines;
}

ParsedOptions parse_command_options(const Command& command, const std::vector<std::string>& args,
                                    const po::options_description& named) {
  po::options_description all;
  all.add(named).add(help_option());
  all.add_options()("positional", po::value<std::vector<std::string>>(), "");
  po::positional_options_description positional;
  positional.add("positional", -1);
  ParsedOptions parsed;
  po::store(po::command_line_parser(args).options(all).positional(positional).run(), parsed.values);
  parsed.help = parsed.values.count("help") > 0;
  if (parsed.help) return parsed;
  po::notify(parsed.values);
  if (parsed.values.count("positional"))
    parsed.positionals = parsed.values["positional"].as<std::vector<std::string>>();
  const bool variadic = command.positionals == kOneOrMorePositionals;
  if (variadic ? parsed.positionals.empty() : parsed.positionals.size() != command.positionals) {
    // The example names a config only where the command takes one (not `lab run N`).
    const bool takes_config = std::string(command.usage).find("CONFIG") != std::string::npos;
    throw UsageError("expected: simctl " + std::string(command.usage) + " (" +
                     (takes_config ? "e.g. simctl " + std::string(command.name) + " configs/dgx_h100_x8.yaml; " : "") +
                     "simctl " + command.name + " --help for its options)");
  }
  return parsed;
}

void print_command_help(const Command& command, const po::options_description& named, std::ostream& out) {
  po::options_description shown;
  shown.add(named).add(help_option());
  out << "usage: simctl " << command.usage << "\n"
      << command.summary << "\n\noptions:\n"
      << options_text(shown, po::options_description::m_default_line_length);
}

}  // namespace simctl
