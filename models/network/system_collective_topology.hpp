#pragma once
// Fills CollectiveTopology from a System: each GPU's node and NVSwitch, NVLS
// where the GPUs' NVSwitch links are NVLink4 or later (Hopper's NVSwitch
// reduces; Ampere's does not), and the per-GPU rates inside and between
// nodes. SHARP is a property of the switches' firmware and licence, not of
// the graph, so the caller says whether the fabric has it.
#include "models/network/collective_topology.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

CollectiveTopology describe_collective_topology(const System& system, bool sharp_enabled = false);

}  // namespace simctl
