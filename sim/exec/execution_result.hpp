#pragma once
// What one replay of a trace produced: when every op ran, and the counters
// the report turns into breakdowns and bottlenecks. Plain data, no behaviour.
#include <cstdint>
#include <memory>
#include <memory_resource>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

struct OpTiming {
  TimePs start = 0;
  TimePs end = 0;
};

struct RankTimeline {
  std::pmr::vector<OpTiming> ops;  // parallel to the rank's ops
  // Per op, whether the roofline's memory side won (compute ops only). It
  // depends on the program and the GPU type alone, so ranks alike share one.
  std::shared_ptr<const std::vector<bool>> memory_bound;
  TimePs finish = 0;  // end of the rank's last op

  bool is_memory_bound(std::size_t op) const { return memory_bound && (*memory_bound)[op]; }
};

struct LinkUsage {
  double bytes = 0.0;  // bytes carried in this direction
  TimePs busy = 0;     // time with at least one flow on the link
};

struct ExecutionResult {
  // Where the executor puts the ranks' timings (declared first, so it
  // outlives them); copies of a timeline take ordinary memory.
  std::shared_ptr<std::pmr::memory_resource> timing_memory;
  std::vector<RankTimeline> ranks;
  std::vector<LinkUsage> links;  // indexed by LinkId
  TimePs step_time = 0;          // latest rank finish
  std::uint64_t events = 0;      // engine events processed
  std::uint64_t flows = 0;       // point-to-point flows simulated
};

}  // namespace simctl
