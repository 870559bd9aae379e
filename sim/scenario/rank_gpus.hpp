#pragma once
// The catalogue GPUs a training run's ranks sit on: what per-GPU framework
// defaults (attention kernel, kernel time factor) are chosen by.
#include <vector>

#include "models/devices/device_catalogue.hpp"
#include "sim/topology/system.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// One entry per distinct catalogue GPU, in rank order; rank r runs on
// parallel.gpus[r] (GPU r when empty). Ranks past the system's GPUs are
// skipped (the world-size check reports them).
std::vector<const GpuSpec*> gpus_of_ranks(const WorkloadSpec& spec, const System& system,
                                          const DeviceCatalogue& catalogue, int ranks);

}  // namespace simctl
