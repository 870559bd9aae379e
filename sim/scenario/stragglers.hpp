#pragma once
// A run's stragglers: GPUs that compute slower than their catalogue entry
// says (thermal throttling, a weak part), named in the run config as
//
//   stragglers:
//     - {gpu: node0.gpu3, compute_speed: 0.8}   # or gpu: "gpu:3" (a rank)
//
// Kept out of the system file so one machine serves runs with and without.
#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

// Sets each named GPU's compute speed; throws ConfigError naming the entry
// (an unknown part, a part that is not a GPU, a speed outside (0, 1]).
void apply_stragglers(const ConfigNode& stragglers, System& system);

}  // namespace simctl
