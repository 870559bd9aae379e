#include "models/devices/power_model.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace simctl {

double power_model_tdp(const PowerModel& model, double part_tdp_watts) {
  return model.die_tdp_watts > 0.0 ? model.die_tdp_watts : part_tdp_watts;
}

double settled_clock_fraction(const PowerModel& model, double part_tdp_watts, double limit_watts) {
  const double tdp_watts = power_model_tdp(model, part_tdp_watts);
  const double idle = model.idle_fraction * tdp_watts;
  if (!(limit_watts > idle)) throw std::invalid_argument("a power limit must exceed the idle draw");
  const double r = model.settled_clock_at_tdp * std::cbrt((limit_watts - idle) / (tdp_watts - idle));
  return std::min(1.0, r);
}

double sustained_tensor_slowdown(const PowerModel& model, double tdp_watts, double limit_watts, double clock_scale) {
  if (model.settled_clock_at_tdp >= 1.0) return model.slowdown_at_tdp * model.datasheet_peak_over_die;
  const double exponent = std::log(model.slowdown_at_tdp) / -std::log(model.settled_clock_at_tdp);
  const double own = std::min(1.0, settled_clock_fraction(model, tdp_watts, limit_watts) / clock_scale);
  return std::pow(own, -exponent) * model.datasheet_peak_over_die;
}

}  // namespace simctl
