#pragma once
// A run's stragglers: GPUs that compute slower than their catalogue entry
// says (thermal throttling, a weak part), named in the run config as
//
//   stragglers:
//     - {gpu: node0.gpu3, compute_speed: 0.8}   # or gpu: "gpu:3" (a rank)
//
// Kept out of the system file so one machine serves runs with and without.
#include "models/devices/device_catalogue.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

// Sets each named GPU's compute speed; throws ConfigError naming the entry
// (an unknown part, a part that is not a GPU, a speed outside (0, 1]).
void apply_stragglers(const ConfigNode& stragglers, System& system);

// Refuses, at the slowest entry's compute_speed, stragglers so slow that a
// rank's kernels alone would run past the simulated clock's range (int64
// picoseconds, about 106 days), saying the speed that would fit. Without
// it such a run ended in an internal error from the engine.
void check_stragglers_fit_clock(const ConfigNode& stragglers, const Trace& trace, const System& system,
                                const DeviceCatalogue& catalogue);

}  // namespace simctl
