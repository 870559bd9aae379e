#pragma once
// A replay whose events ran past the simulated clock's range (int64
// picoseconds, about 106 days; sim/core/clock_overflow.hpp) is bad input, not
// an internal error: a rate in the config is too low for the work it
// carries. Loaders refuse what they can foresee (a straggler's
// compute_speed); this turns the rest into a ConfigError on the config,
// naming the slowest link and the slowest GPU, the rates to raise.
#include <string>

#include "sim/config/config_error.hpp"
#include "sim/core/clock_overflow.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl {

ConfigError clock_overflow_error(const Scenario& scenario, const std::string& config_path);

// Runs `replay` (which replays `scenario`), turning a ClockOverflow into
// clock_overflow_error.
template <typename Replay>
auto within_clock(const Scenario& scenario, const std::string& config_path, Replay&& replay) {
  try {
    return replay();
  } catch (const ClockOverflow&) {
    throw clock_overflow_error(scenario, config_path);
  }
}

}  // namespace simctl
