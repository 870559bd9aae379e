#pragma once
// The step a config generates, loaded for writing out (`simctl trace`,
// `simctl export chakra`): --set applied, an estimate over a GPU's memory
// not fatal (the user may be about to edit the trace), and an inference
// workload refused, since it has no single step (trace_command.cpp).
#include "sim/cli/options.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

Scenario load_exportable_step(const ParsedOptions& options);

}  // namespace simctl
