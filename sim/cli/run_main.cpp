#include <boost/program_options.hpp>
#include <sstream>
#include <string_view>
#include <vector>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/config/config_error.hpp"

namespace simctl {
namespace {

constexpr unsigned kLineLength = 80;
constexpr std::string_view kIndent = "    ";  // under a command's usage line

// `text` with every line indented by `indent`.
std::string indented(const std::string& text, std::string_view indent) {
  std::istringstream lines(text);
  std::string result, line;
  while (std::getline(lines, line)) result += line.empty() ? "\n" : std::string(indent) + line + "\n";
  return result;
}

// Every command with its summary and its options, as `<command> --help`
// prints them in full.
void print_usage(std::ostream& out) {
  out << "usage: simctl <command> [arguments]\n\ncommands:\n";
  for (const Command& c : all_commands()) {
    out << "  " << c.usage << "\n      " << c.summary << "\n";
    out << indented(options_text(c.options(), kLineLength - static_cast<unsigned>(kIndent.size())), kIndent) << "\n";
  }
  out << "`simctl <command> --help` shows one command's usage and options.\n";
  out << "\noptions:\n  -h, --help    show this help\n  --version     show the version\n";
}

const Command* find_command(const std::string& name) {
  for (const Command& c : all_commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

// The two-word commands a first word starts ("lab" -> lab list, lab run).
std::vector<const Command*> commands_starting(const std::string& word) {
  std::vector<const Command*> found;
  for (const Command& c : all_commands()) {
    const std::string name = c.name;
    if (name.size() > word.size() && name.compare(0, word.size(), word) == 0 && name[word.size()] == ' ')
      found.push_back(&c);
  }
  return found;
}

// `simctl lab --help`, or `simctl lab` with no subcommand: the group's
// commands, each with its usage and summary.
int print_group_help(const std::vector<const Command*>& group, const std::vector<std::string>& args, std::ostream& out,
                     std::ostream& err) {
  const bool help = args.size() == 2 && (args[1] == "--help" || args[1] == "-h");
  std::ostream& to = help ? out : err;
  if (!help && args.size() > 1)
    to << "simctl: unknown command '" << args[0] << " " << args[1] << "'; valid commands are ";
  else if (!help)
    to << "simctl " << args[0] << ": which one? valid commands are ";
  if (!help) {
    for (std::size_t i = 0; i < group.size(); ++i) to << (i ? ", " : "") << group[i]->name;
    to << "\n\n";
  }
  to << "usage: simctl " << args[0] << " <command> [arguments]\n\ncommands:\n";
  for (const Command* c : group) to << "  " << c->usage << "\n      " << c->summary << "\n";
  to << "\n`simctl " << group.front()->name << " --help` shows one command's options.\n";
  return help ? 0 : 2;
}

std::string command_names() {
  std::string names;
  for (const Command& c : all_commands()) names += std::string(names.empty() ? "" : ", ") + c.name;
  return names;
}

// Parses the command's arguments against its options and runs it, or
// prints its help.
int dispatch(const Command& command, const std::vector<std::string>& args, std::ostream& out) {
  const boost::program_options::options_description named = command.options();
  const ParsedOptions options = parse_command_options(command, args, named);
  if (!options.help) return command.run(options, out);
  print_command_help(command, named, out);
  return 0;
}

}  // namespace

int run_main(const std::vector<std::string>& args, std::ostream& out, std::ostream& err) {
  if (args.empty() || args[0] == "-h" || args[0] == "--help" || args[0] == "help") {
    print_usage(args.empty() ? err : out);
    return args.empty() ? 2 : 0;
  }
  if (args[0] == "--version") {
    out << "simctl " << kVersion << "\n";
    return 0;
  }
  // A two-word command ("sweep merge") before the one-word one it starts with.
  std::size_t words = 1;
  const Command* command = args.size() > 1 ? find_command(args[0] + " " + args[1]) : nullptr;
  if (command != nullptr) words = 2;
  if (command == nullptr) command = find_command(args[0]);
  if (command == nullptr) {
    if (const auto group = commands_starting(args[0]); !group.empty()) return print_group_help(group, args, out, err);
    err << "simctl: unknown command '" << args[0] << "'; valid commands are " << command_names() << "\n";
    return 2;
  }
  try {
    return dispatch(*command, std::vector<std::string>(args.begin() + static_cast<long>(words), args.end()), out);
  } catch (const ConfigError& e) {
    err << e.what() << "\n";
  } catch (const UsageError& e) {
    err << "simctl " << command->name << ": " << e.what() << "\n";
  } catch (const boost::program_options::error& e) {
    err << "simctl " << command->name << ": " << e.what() << "; usage: simctl " << command->usage << " (simctl "
        << command->name << " --help for its options)\n";
  }
  return 2;
}

}  // namespace simctl
