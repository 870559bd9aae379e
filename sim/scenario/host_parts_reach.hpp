#pragma once
// Load-time check that every rank whose trace copies to or from the host
// (input samples, offloaded states, storage reads) runs on a GPU that reaches
// the host parts the copies need, so a system whose DRAM or storage is not
// cabled to the GPUs' side is refused with its file and line instead of
// failing inside the replay.
#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

void check_host_parts_reachable(const System& system, const Trace& trace, const ConfigNode& system_node);

}  // namespace simctl
