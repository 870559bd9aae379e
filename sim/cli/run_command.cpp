#include <fstream>
#include <stdexcept>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/render.hpp"
#include "sim/scenario/scenario.hpp"

namespace po = boost::program_options;

namespace simctl {

int run_command_main(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description named;
  named.add_options()("json", po::value<std::string>(), "write the report as JSON to FILE");
  const ParsedOptions options = parse_command_options("run CONFIG [--json FILE]", args, named, 1);

  const Scenario scenario = load_scenario(options.positionals[0]);
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning);
  const ExecutionResult result = executor.run();
  const StepReport report =
      build_step_report(scenario.trace, result, scenario.system, scenario.catalogue, scenario.labels);
  out << render_text(report);
  if (options.values.count("json")) {
    const std::string path = options.values["json"].as<std::string>();
    std::ofstream file(path);
    if (!file) throw std::runtime_error("cannot write JSON report to '" + path + "'");
    file << render_json(report).dump(2) << "\n";
  }
  return 0;
}

}  // namespace simctl
