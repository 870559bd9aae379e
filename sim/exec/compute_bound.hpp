#pragma once
// A lower bound on a replay's step time that needs no replay. A stream runs
// one op at a time (executor.hpp), so no rank can finish before the compute
// kernels on any one of its streams, laid end to end, are done; the step
// ends when its last rank does. The kernels are priced exactly as the
// executor prices them (the device roofline with the framework's factor,
// which the trace's work already carries, then the GPU's straggler speed),
// so the bound is never above the simulated step time.
#include "models/devices/device_catalogue.hpp"
#include "sim/core/units.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

// A kernel's time on a GPU computing at `compute_speed` of its catalogue
// speed (a straggler), from its time at full speed: what the executor runs.
inline TimePs kernel_time_at_speed(TimePs catalogue_time, double compute_speed) {
  return compute_speed == 1.0 ? catalogue_time : seconds_to_ps(ps_to_seconds(catalogue_time) / compute_speed);
}

// The largest, over ranks and streams, of the sum of that stream's compute
// kernel times. Ranks that share a program, GPU type and speed are priced
// once. Throws std::invalid_argument as estimate_compute does.
TimePs compute_stream_bound(const Trace& trace, const System& system, const DeviceCatalogue& catalogue);

}  // namespace simctl
