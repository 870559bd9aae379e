#pragma once
// Runs a lab's config the way `simctl run` does and builds its report, so a
// lab test judges exactly what students read.
#include <string>

#include "sim/report/step_report.hpp"
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

}  // namespace simctl::testing
