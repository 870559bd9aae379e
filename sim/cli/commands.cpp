#include "sim/cli/commands.hpp"

#include <fstream>
#include <stdexcept>

#include "sim/exec/executor.hpp"
#include "sim/report/render.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

int run_command(const std::string& config_path, const std::string& json_path, std::ostream& out) {
  const Scenario scenario = load_scenario(config_path);
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning);
  const ExecutionResult result = executor.run();
  const StepReport report =
      build_step_report(scenario.trace, result, scenario.system, scenario.catalogue, scenario.labels);
  out << render_text(report);
  if (!json_path.empty()) {
    std::ofstream file(json_path);
    if (!file) throw std::runtime_error("cannot write JSON report to '" + json_path + "'");
    file << render_json(report).dump(2) << "\n";
  }
  return 0;
}

int check_command(const std::string& config_path, std::ostream& out) {
  const Scenario scenario = load_scenario(config_path);
  out << config_path << ": ok (" << scenario.labels.system << "; " << scenario.labels.workload << ")\n";
  return 0;
}

}  // namespace simctl
