#pragma once
// Runs a lab's config the way `simctl run` does and builds its report, so a
// lab test judges exactly what students read.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "sim/report/step_report.hpp"
#include "tests/cli/run_binary.hpp"
#include "tests/workloads/plan_run.hpp"

namespace simctl::testing {

struct LabRun {
  PlanRun run;
  StepReport report;
};

inline LabRun run_lab_config(const std::string& relative) {
  PlanRun run = run_config(relative);
  StepReport report = build_step_report(run.scenario.trace, run.result, run.scenario.system, run.scenario.catalogue,
                                        run.scenario.labels, {run.scenario.costs, run.scenario.rank_memory});
  return {std::move(run), std::move(report)};
}

// Runs `simctl sweep STUDY --json` as students do and returns the JSON rows.
inline nlohmann::json run_lab_sweep(const std::string& relative_study) {
  const auto file = std::filesystem::temp_directory_path() / ("lab_sweep_" + std::to_string(::getpid()) + ".json");
  const auto r = run_simctl("sweep " + config_path(relative_study) + " --json " + file.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json out = nlohmann::json::parse(read_text(file));
  std::filesystem::remove(file);
  return out;
}

}  // namespace simctl::testing
