#pragma once
// What one replay of a trace produced: when every op ran, and the counters
// the report turns into breakdowns and bottlenecks. Plain data, no behaviour.
#include <cstdint>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

struct OpTiming {
  TimePs start = 0;
  TimePs end = 0;
  bool memory_bound = false;  // compute ops only: the roofline's memory side won
};

struct RankTimeline {
  std::vector<OpTiming> ops;  // parallel to RankTrace::ops
  TimePs finish = 0;          // end of the rank's last op
};

struct LinkUsage {
  double bytes = 0.0;  // bytes carried in this direction
  TimePs busy = 0;     // time with at least one flow on the link
};

struct ExecutionResult {
  std::vector<RankTimeline> ranks;
  std::vector<LinkUsage> links;  // indexed by LinkId
  TimePs step_time = 0;          // latest rank finish
  std::uint64_t events = 0;      // engine events processed
  std::uint64_t flows = 0;       // point-to-point flows simulated
};

}  // namespace simctl
