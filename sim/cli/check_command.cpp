#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/set_option.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

boost::program_options::options_description check_options() {
  boost::program_options::options_description named;
  add_set_option(named);
  return named;
}

int check_command_main(const ParsedOptions& options, std::ostream& out) {
  // An inference workload is valid input though only `simctl memory` runs it.
  ScenarioOptions load;
  load.memory_only = true;
  load.overrides = set_overrides(options);
  const Scenario scenario = load_scenario(options.positionals[0], load);
  print_set_line(load.overrides, out);
  out << options.positionals[0] << ": ok (" << scenario.labels.system << "; " << scenario.labels.workload << ")\n";
  return 0;
}

}  // namespace simctl
