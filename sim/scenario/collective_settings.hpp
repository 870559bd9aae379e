#pragma once
// A run config's `collectives:` section, checked against the job before any
// replay: every algorithm it pins must run on every group the trace issues
// that op on, so a bad pin is a ConfigError at load, not a failure mid-step.
#include "models/network/collective_overrides.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

// `root` is the run config; without a `collectives:` section every op is
// `auto` and SHARP is off. Throws ConfigError naming the field and what
// would be valid there.
CollectiveOverrides load_collective_overrides(const ConfigNode& root, const System& system, const Trace& trace);

}  // namespace simctl
