#pragma once
// Which fused attention kernel a training run's attention ops are priced as:
// the config's `attention`, or the framework's default for the GPUs it runs
// on (workloads/frameworks.yaml, attention_by_architecture; flash2 where the
// framework names none). Checked against the GPUs: a kernel a GPU cannot run
// or has no fitted efficiency for (FlashAttention-3 off Hopper) is refused at
// the config's `attention` field.
#include "models/devices/device_catalogue.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// `workload_node` is the workload section (for the error's file:line);
// `ranks` the world size, rank r on parallel.gpus[r] (GPU r when empty).
void choose_attention_kernel(const ConfigNode& workload_node, WorkloadSpec& spec, const System& system,
                             const DeviceCatalogue& catalogue, int ranks);

}  // namespace simctl
