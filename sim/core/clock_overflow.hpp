#pragma once
// The simulated clock is int64 picoseconds: about 106 days. A run whose
// events would fall past that (a GPU a billion times slower than its
// catalogue entry, a link at 1 kB/s carrying gigabytes) cannot be replayed;
// the engine says so with this error rather than wrapping to a time in the
// past. Loaders refuse the inputs they can foresee with a ConfigError
// naming the field; callers that replay a config turn any other into one.
#include <stdexcept>

#include "sim/core/units.hpp"

namespace simctl {

class ClockOverflow : public std::overflow_error {
 public:
  ClockOverflow() : std::overflow_error("the simulated time ran past the clock's range (2^63 ps, about 106 days)") {}
};

// The clock's range in seconds, for messages and load-time checks.
inline constexpr double kClockRangeSeconds = static_cast<double>(kTimeNever) / 1e12;

}  // namespace simctl
