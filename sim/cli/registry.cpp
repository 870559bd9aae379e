#include "sim/cli/command.hpp"

namespace simctl {

int run_command_main(const std::vector<std::string>& args, std::ostream& out);
int check_command_main(const std::vector<std::string>& args, std::ostream& out);
int memory_command_main(const std::vector<std::string>& args, std::ostream& out);
int collective_command_main(const std::vector<std::string>& args, std::ostream& out);
int route_command_main(const std::vector<std::string>& args, std::ostream& out);
int trace_command_main(const std::vector<std::string>& args, std::ostream& out);

const std::vector<Command>& all_commands() {
  static const std::vector<Command> commands{
      {"run", "run CONFIG [--json FILE]", "simulate one training step and print the report", run_command_main},
      {"check", "check CONFIG", "validate a config without running it", check_command_main},
      {"memory", "memory CONFIG", "per-stage memory estimate (GiB) against GPU capacity", memory_command_main},
      {"collective", "collective CONFIG [--op OP] [--gpus N] [--min SIZE] [--max SIZE] [--factor F] [--algo ALGO]", "nccl-tests twin: time one collective over a range of sizes", collective_command_main},
      {"route", "route CONFIG SRC DST [--flow KEY]", "print the path between two parts (names or gpu:RANK)",
       route_command_main},
      {"trace", "trace CONFIG OUT.json [--ranks M]", "write the config's per-rank trace as an editable, replayable file",
       trace_command_main},
  };
  return commands;
}

}  // namespace simctl
