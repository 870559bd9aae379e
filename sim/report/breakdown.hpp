#pragma once
// Where one rank's step went, category by category (categories.hpp).
#include <array>
#include <vector>

#include "sim/exec/execution_result.hpp"
#include "sim/report/categories.hpp"
#include "sim/report/rendezvous.hpp"
#include "workloads/trace.hpp"

namespace simctl {

// Every category's time within one step on one rank (or the mean over
// ranks). The categories add up to `step` exactly.
struct TimeBreakdown {
  std::array<TimePs, kCategoryCount> time{};
  TimePs overlapped_communication = 0;  // communication moving bytes under compute (not in the sum)
  TimePs step = 0;

  TimePs operator[](Category c) const { return time[static_cast<std::size_t>(c)]; }
  TimePs& operator[](Category c) { return time[static_cast<std::size_t>(c)]; }
  TimePs compute() const;  // compute_bound + compute_memory_bound + compute_launch_bound + optimizer
  TimePs exposed_communication() const;
  TimePs exposed_copy() const;  // data_loading + host_copy
  TimePs idle() const;          // pipeline_bubble + waiting
  TimePs sum() const;
};

// The breakdown of rank `rank` (docs/output.md defines each category). A
// rank that exchanges pipeline activations and finishes before the step
// ends spends the rest in the pipeline's drain: that is bubble too.
TimeBreakdown rank_breakdown(const Trace& trace, const ExecutionResult& result, const RendezvousTable& rendezvous,
                             std::uint32_t rank);
// Every rank's breakdown, in rank order.
std::vector<TimeBreakdown> rank_breakdowns(const Trace& trace, const ExecutionResult& result,
                                           const RendezvousTable& rendezvous);
TimeBreakdown mean_breakdown(const std::vector<TimeBreakdown>& ranks);

}  // namespace simctl
