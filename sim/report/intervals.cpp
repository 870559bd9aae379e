#include "sim/report/intervals.hpp"

#include <algorithm>

namespace simctl {

std::vector<Interval> merge_intervals(std::vector<Interval> intervals) {
  std::sort(intervals.begin(), intervals.end(), [](const Interval& x, const Interval& y) {
    return x.start != y.start ? x.start < y.start : x.end < y.end;
  });
  std::vector<Interval> merged;
  for (const Interval& iv : intervals) {
    if (iv.end <= iv.start) continue;
    if (!merged.empty() && iv.start <= merged.back().end) {
      merged.back().end = std::max(merged.back().end, iv.end);
    } else {
      merged.push_back(iv);
    }
  }
  return merged;
}

TimePs total_length(const std::vector<Interval>& merged) {
  TimePs sum = 0;
  for (const Interval& iv : merged) sum += iv.end - iv.start;
  return sum;
}

TimePs length_outside(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  TimePs covered = 0;
  std::size_t j = 0;
  for (const Interval& x : a) {
    while (j < b.size() && b[j].end <= x.start) ++j;
    for (std::size_t k = j; k < b.size() && b[k].start < x.end; ++k) {
      covered += std::min(x.end, b[k].end) - std::max(x.start, b[k].start);
    }
  }
  return total_length(a) - covered;
}

std::vector<Interval> union_of(const std::vector<Interval>& a, const std::vector<Interval>& b) {
  std::vector<Interval> all(a);
  all.insert(all.end(), b.begin(), b.end());
  return merge_intervals(std::move(all));
}

}  // namespace simctl
