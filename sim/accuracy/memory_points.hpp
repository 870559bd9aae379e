#pragma once
// The measured peak-memory points of workloads/measured/memory_points.yaml
// and simctl's estimate of each: the largest rank's allocated bytes
// (workloads/memory_estimate.hpp), and the caching allocator's reserved
// bytes, allocated x (1 + the file's fitted margin), which is what the
// frameworks log.
#include <string>
#include <vector>

#include "workloads/workload_config.hpp"

namespace simctl {

struct MemoryPoint {
  std::string id;
  std::string gpu;
  double measured_gib = 0.0;  // the allocator's reserved peak, as logged
  bool in_sample = false;     // the allocator margin was fitted to it
  double tolerance = 0.0;     // relative
  std::string source;
  std::string setup;
  WorkloadSpec workload;
};

struct UnmodelledPeak {
  std::string id;
  std::string measured;
  std::string source;
  std::string reason;
};

struct MemoryPoints {
  double reserved_over_allocated = 0.0;
  std::vector<std::string> fitted_on;
  std::vector<MemoryPoint> points;
  std::vector<UnmodelledPeak> not_modelled;
};

// Reads the file; a malformed entry (or a margin fitted on a held-out
// point) throws ConfigError naming file:line and the field.
MemoryPoints load_memory_points(const std::string& path);
std::string memory_points_path();

struct MemoryPointEstimate {
  double allocated_gib = 0.0;  // the largest rank's live tensors at its peak
  double reserved_gib = 0.0;   // with the allocator margin
  double error = 0.0;          // reserved / measured - 1
  std::string largest_items;   // "activations 31.0, optimizer_states 7.5" (GiB), the rank's two largest
};

MemoryPointEstimate estimate_point(const MemoryPoint& point, double reserved_over_allocated);

// The margin the in-sample points give: mean over them of measured /
// allocated - 1.
double fit_allocator_margin(const MemoryPoints& points);

}  // namespace simctl
