#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

boost::program_options::options_description check_options() { return {}; }

int check_command_main(const ParsedOptions& options, std::ostream& out) {
  // An inference workload is valid input though only `simctl memory` runs it.
  ScenarioOptions load;
  load.memory_only = true;
  const Scenario scenario = load_scenario(options.positionals[0], load);
  out << options.positionals[0] << ": ok (" << scenario.labels.system << "; " << scenario.labels.workload << ")\n";
  return 0;
}

}  // namespace simctl
