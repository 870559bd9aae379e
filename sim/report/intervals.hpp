#pragma once
// Interval arithmetic over one rank's timeline. Each stream runs one op at a
// time, so a stream's busy intervals are disjoint and already in order; the
// breakdown needs their lengths, unions and differences.
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

struct Interval {
  TimePs start = 0;
  TimePs end = 0;
};

// Sorts and merges overlapping or touching intervals.
std::vector<Interval> merge_intervals(std::vector<Interval> intervals);
TimePs total_length(const std::vector<Interval>& merged);
// Length of `a` not covered by `b`; both merged.
TimePs length_outside(const std::vector<Interval>& a, const std::vector<Interval>& b);
std::vector<Interval> union_of(const std::vector<Interval>& a, const std::vector<Interval>& b);

}  // namespace simctl
