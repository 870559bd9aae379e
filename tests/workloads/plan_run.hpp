#pragma once
// Runs a scenario (a config file) through the executor, for tests that judge
// simulated timelines.
#include <string>

#include "sim/exec/executor.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl::testing {

inline std::string config_path(const std::string& relative) { return std::string(SIMCTL_SOURCE_DIR) + "/" + relative; }

struct PlanRun {
  Scenario scenario;
  ExecutionResult result;
  double step_s() const { return ps_to_seconds(result.step_time); }
};

inline PlanRun run_scenario(Scenario scenario) {
  PlanRun run{std::move(scenario), {}};
  Executor executor(run.scenario.system, run.scenario.catalogue, run.scenario.trace, run.scenario.tuning);
  run.result = executor.run();
  return run;
}

inline PlanRun run_config(const std::string& relative) { return run_scenario(load_scenario(config_path(relative))); }

// The config under a framework other than its own (or the default one), for
// a test whose premise is a framework: `ideal` isolates a mechanism from any
// framework's host and kernel costs.
inline PlanRun run_config_under(const std::string& relative, const std::string& framework) {
  ScenarioOptions options;
  options.overrides = {ConfigOverride{"workload.framework", framework, SourceLocation{"test", 1, 1}}};
  return run_scenario(load_scenario(config_path(relative), options));
}

}  // namespace simctl::testing
