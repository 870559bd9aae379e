#include "sim/cli/command.hpp"

namespace simctl {

int run_command_main(const std::vector<std::string>& args, std::ostream& out);
int check_command_main(const std::vector<std::string>& args, std::ostream& out);

const std::vector<Command>& all_commands() {
  static const std::vector<Command> commands{
      {"run", "run CONFIG [--json FILE]", "simulate one training step and print the report", run_command_main},
      {"check", "check CONFIG", "validate a config without running it", check_command_main},
  };
  return commands;
}

}  // namespace simctl
