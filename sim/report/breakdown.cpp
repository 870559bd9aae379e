#include "sim/report/breakdown.hpp"

#include "sim/report/intervals.hpp"

namespace simctl {

TimeBreakdown rank_breakdown(const RankTrace& ops, const RankTimeline& timeline, TimePs step_time) {
  std::vector<Interval> compute, communication, copy, memory_bound;
  for (std::size_t i = 0; i < ops.ops.size(); ++i) {
    const Interval iv{timeline.ops[i].start, timeline.ops[i].end};
    switch (ops.ops[i].stream) {
      case Stream::compute:
        compute.push_back(iv);
        if (timeline.ops[i].memory_bound) memory_bound.push_back(iv);
        break;
      case Stream::communication: communication.push_back(iv); break;
      case Stream::copy: copy.push_back(iv); break;
    }
  }
  compute = merge_intervals(std::move(compute));
  communication = merge_intervals(std::move(communication));
  copy = merge_intervals(std::move(copy));
  const auto compute_or_comm = union_of(compute, communication);

  TimeBreakdown b;
  b.step = step_time;
  b.compute = total_length(compute);
  b.compute_memory_bound = total_length(merge_intervals(std::move(memory_bound)));
  b.exposed_communication = length_outside(communication, compute);
  b.overlapped_communication = total_length(communication) - b.exposed_communication;
  b.exposed_copy = length_outside(copy, compute_or_comm);
  b.idle = step_time - total_length(union_of(compute_or_comm, copy));
  return b;
}

TimeBreakdown mean_breakdown(const std::vector<TimeBreakdown>& ranks) {
  TimeBreakdown sum;
  for (const auto& r : ranks) {
    sum.compute += r.compute;
    sum.compute_memory_bound += r.compute_memory_bound;
    sum.exposed_communication += r.exposed_communication;
    sum.overlapped_communication += r.overlapped_communication;
    sum.exposed_copy += r.exposed_copy;
    sum.idle += r.idle;
    sum.step = r.step;
  }
  if (ranks.empty()) return sum;
  const auto n = static_cast<TimePs>(ranks.size());
  TimeBreakdown mean;
  mean.step = sum.step;
  mean.compute = sum.compute / n;
  mean.compute_memory_bound = sum.compute_memory_bound / n;
  mean.exposed_communication = sum.exposed_communication / n;
  mean.overlapped_communication = sum.overlapped_communication / n;
  mean.exposed_copy = sum.exposed_copy / n;
  // Idle takes the rounding remainder so the mean also sums to the step.
  mean.idle = mean.step - mean.compute - mean.exposed_communication - mean.exposed_copy;
  return mean;
}

}  // namespace simctl
