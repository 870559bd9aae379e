#pragma once
// A workload given as a trace file (`workload: {trace: path}`, the path
// relative to the file that names it): replayed as written instead of
// generated from a model and a plan.
#include "models/devices/device_catalogue.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

struct TraceWorkload {
  Trace trace;
  std::string label;  // "trace FILE: <description the file carries>"
};

bool is_trace_workload(const ConfigNode& workload_node);

// Reads and validates the trace file (its errors name that file and the
// field's path) and checks that `system` has a GPU for every rank and that
// measured kernels name a GPU of `catalogue` they were measured on.
TraceWorkload load_trace_workload(const ConfigNode& workload_node, const System& system,
                                  const DeviceCatalogue& catalogue);

}  // namespace simctl
