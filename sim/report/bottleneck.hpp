#pragma once
#include <string>

#include "sim/report/step_report.hpp"

namespace simctl {

// One line in plain words naming what limits the step: the largest share of
// the step (compute, exposed communication, copies, pipeline bubble,
// waiting), qualified by what dominates inside it, then the busiest tier of
// links (with its oversubscription where there is one).
std::string describe_bottleneck(const StepReport& report);

}  // namespace simctl
