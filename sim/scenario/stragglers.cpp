#include "sim/scenario/stragglers.hpp"

#include <cmath>
#include <cstdio>
#include <optional>
#include <stdexcept>

#include "sim/config/config_schema.hpp"
#include "sim/core/clock_overflow.hpp"
#include "sim/exec/compute_bound.hpp"
#include "sim/topology/part_lookup.hpp"

namespace simctl {

void apply_stragglers(const ConfigNode& stragglers, System& system) {
  for (const ConfigNode& entry : stragglers.elements()) {
    expect_section(entry, "stragglers[]");
    const ConfigNode gpu = entry.child("gpu");
    EndpointId part = 0;
    try {
      part = resolve_part(system, gpu.as_string());
    } catch (const std::invalid_argument& e) {
      gpu.fail(e.what());
    }
    if (system.part(part).kind != PartKind::gpu) {
      gpu.fail("'" + system.part(part).name + "' is not a GPU; name a GPU such as 'node0.gpu3' or 'gpu:3'");
    }
    const double speed = entry.child("compute_speed").as_number();
    if (!(speed > 0.0 && speed <= 1.0)) {
      entry.child("compute_speed").fail("must be a fraction in (0, 1] of the GPU's catalogue speed, e.g. 0.8");
    }
    system.set_compute_speed(part, speed);
  }
}

void check_stragglers_fit_clock(const ConfigNode& stragglers, const Trace& trace, const System& system,
                                const DeviceCatalogue& catalogue) {
  std::optional<ConfigNode> slowest;
  double slowest_speed = 1.0;
  for (const ConfigNode& entry : stragglers.elements()) {
    const double speed = entry.child("compute_speed").as_number();
    if (speed < slowest_speed) slowest = entry.child("compute_speed"), slowest_speed = speed;
  }
  if (!slowest || trace.ranks.empty()) return;
  TimePs bound = 0;
  try {
    bound = compute_stream_bound(trace, system, catalogue);
  } catch (const std::invalid_argument&) {
    return;  // a kernel the GPU cannot price is refused where the trace is built
  }
  if (bound < kTimeNever / 2) return;
  // The bound may have saturated: price the kernels at full speed, then scale.
  System full_speed = system;
  for (EndpointId gpu : system.gpus()) full_speed.set_compute_speed(gpu, 1.0);
  const double full_s = ps_to_seconds(compute_stream_bound(trace, full_speed, catalogue));
  const double fits = std::ceil(2.0 * full_s / kClockRangeSeconds * 1e6) / 1e6;  // kernels in half the range
  char text[320];
  std::snprintf(text, sizeof text,
                "at %g of its speed a rank's kernels alone take about %.3g s, past the simulated clock's range of "
                "%.3g s (int64 picoseconds, about 106 days); use a compute_speed of at least %g",
                slowest_speed, full_s / slowest_speed, kClockRangeSeconds, fits);
  slowest->fail(text);
}

}  // namespace simctl
