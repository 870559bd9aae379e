#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

int check_command_main(const std::vector<std::string>& args, std::ostream& out) {
  const ParsedOptions options = parse_command_options("check CONFIG", args, {}, 1);
  const Scenario scenario = load_scenario(options.positionals[0]);
  out << options.positionals[0] << ": ok (" << scenario.labels.system << "; " << scenario.labels.workload << ")\n";
  return 0;
}

}  // namespace simctl
