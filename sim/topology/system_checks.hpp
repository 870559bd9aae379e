#pragma once
// Whole-system checks that only make sense once every part and cable exists.
#include <map>

#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

// Where each GPU was declared, so a failure can point at the config line.
using GpuDeclarations = std::map<EndpointId, ConfigNode>;

// Raises ConfigError when the system has no GPU, when a GPU reaches no other
// GPU or no CPU socket, or when the GPUs fall apart into separate pieces.
void check_gpus_connected(const System& system, const GpuDeclarations& declared, const ConfigNode& system_node);

}  // namespace simctl
