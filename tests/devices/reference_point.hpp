#pragma once
// Reads models/devices/measured/reference_points.yaml and turns each point into
// the ComputeWork the benchmark ran, so calibration tests can compare the
// model's figure with the measured one.
#include <optional>
#include <string>
#include <vector>

#include "models/devices/compute_work.hpp"

namespace simctl::testing {

struct ReferencePoint {
  std::string id;
  std::string gpu;
  ComputeWork work;
  std::optional<ComputeWork> backward_work;  // attention fwd+bwd points: the backward kernel
  double measured = 0.0;                     // FLOP/s for gemm/attention, bytes/s for stream
  bool is_bandwidth = false;                 // measured is bytes/s
  double tolerance = 0.0;                    // relative
  bool matched = true;
  std::string why;  // for unmatched points
};

std::vector<ReferencePoint> load_reference_points();

}  // namespace simctl::testing
