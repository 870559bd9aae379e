#pragma once
// workload.head, labels and masked_fraction: which task head a transformer
// trains through (transformer_spec.hpp, TaskHead), checked against the model
// and the parallel plan.
#include "sim/config/config_node.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// Sets spec.model.head from the workload node; call after the model and the
// parallel plan are read. Throws ConfigError at the offending field.
void set_task_head(const ConfigNode& workload, WorkloadSpec& spec);

}  // namespace simctl
