#pragma once
// Reads `workload.finetune` (finetune.hpp) and checks it against the rest of
// the workload; every refusal names the field and what would be valid.
#include "sim/config/config_node.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// `node` is the `workload:` mapping; `spec` holds its model, plan and
// precision already. Sets spec.finetune when the section is present.
void set_finetune(const ConfigNode& node, WorkloadSpec& spec);

}  // namespace simctl
