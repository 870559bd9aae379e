#include "sim/scenario/stragglers.hpp"

#include <stdexcept>

#include "sim/config/config_schema.hpp"
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

}  // namespace simctl
