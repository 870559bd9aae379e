#pragma once
#include <string>

#include "sim/report/step_report.hpp"

namespace simctl {

// One line in plain words naming what limits the step: the largest share of
// the step (compute, exposed communication, copies, idle), qualified by what
// dominates inside it, and the busiest link.
std::string describe_bottleneck(const StepReport& report);

}  // namespace simctl
