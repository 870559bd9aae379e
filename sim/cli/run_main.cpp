#include <boost/program_options.hpp>
#include <cstdio>

#include "sim/cli/command.hpp"
#include "sim/config/config_error.hpp"

namespace simctl {
namespace {

void print_usage(std::ostream& out) {
  out << "usage: simctl <command> [arguments]\n\ncommands:\n";
  for (const Command& c : all_commands()) {
    char line[256];
    std::snprintf(line, sizeof line, "  %-44s %s\n", c.usage, c.summary);
    out << line;
  }
  out << "\noptions:\n  -h, --help    show this help\n  --version     show the version\n";
}

const Command* find_command(const std::string& name) {
  for (const Command& c : all_commands()) {
    if (name == c.name) return &c;
  }
  return nullptr;
}

std::string command_names() {
  std::string names;
  for (const Command& c : all_commands()) names += std::string(names.empty() ? "" : ", ") + c.name;
  return names;
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
  const Command* command = find_command(args[0]);
  if (command == nullptr) {
    err << "simctl: unknown command '" << args[0] << "'; valid commands are " << command_names() << "\n";
    return 2;
  }
  try {
    return command->run(std::vector<std::string>(args.begin() + 1, args.end()), out);
  } catch (const ConfigError& e) {
    err << e.what() << "\n";
  } catch (const UsageError& e) {
    err << "simctl " << command->name << ": " << e.what() << "\n";
  } catch (const boost::program_options::error& e) {
    err << "simctl " << command->name << ": " << e.what() << "; usage: simctl " << command->usage << "\n";
  }
  return 2;
}

}  // namespace simctl
