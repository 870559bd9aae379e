#pragma once
#include "sim/exec/execution_result.hpp"
#include "sim/report/step_report.hpp"
#include "workloads/trace.hpp"

namespace simctl {

// The breakdown of one rank's step: compute, then communication not hidden
// under compute, then copies hidden under neither, then idle.
TimeBreakdown rank_breakdown(const RankTrace& ops, const RankTimeline& timeline, TimePs step_time);
TimeBreakdown mean_breakdown(const std::vector<TimeBreakdown>& ranks);

}  // namespace simctl
