#pragma once
// Weak scaling of a generated trace over whole data-parallel replicas: each
// new rank runs the ops of the rank with the same tensor and pipeline
// coordinates in an existing replica, groups are rebuilt for the new grid,
// and the step totals (FLOPs, tokens, samples) grow with the replica count.
// Per-rank work stays the same, so this holds only where the plan's per-rank
// work does not depend on the data-parallel size.
#include <cstdint>

#include "workloads/trace.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// `trace` must be the one `spec` generates. Throws std::invalid_argument,
// saying why, when `new_ranks` is not a whole number of replicas
// (tensor * pipeline ranks each) or the plan's work depends on the
// data-parallel size (ZeRO, FSDP, nn.DataParallel) or ranks are placed by
// hand (parallel.gpus).
Trace rescale_data_parallel(const Trace& trace, const WorkloadSpec& spec, std::int64_t new_ranks);

}  // namespace simctl
