#pragma once
// Physical quantities used across simctl. Time is an integer count of
// picoseconds so that event ordering is exact and runs are deterministic;
// rates are doubles because they are only ever multiplied and divided.
#include <cmath>
#include <cstdint>
#include <limits>

namespace simctl {

using TimePs = std::int64_t;  // picoseconds; int64 covers ~106 days
using Bytes = std::int64_t;   // exact byte counts (sizes, capacities)

inline constexpr TimePs kPsPerNs = 1'000;
inline constexpr TimePs kPsPerUs = 1'000'000;
inline constexpr TimePs kPsPerMs = 1'000'000'000;
inline constexpr TimePs kPsPerS = 1'000'000'000'000;
inline constexpr TimePs kTimeNever = std::numeric_limits<TimePs>::max();

inline constexpr Bytes kKiB = 1024;
inline constexpr Bytes kMiB = 1024 * kKiB;
inline constexpr Bytes kGiB = 1024 * kMiB;

inline double ps_to_seconds(TimePs t) { return static_cast<double>(t) / 1e12; }
inline double ps_to_ms(TimePs t) { return static_cast<double>(t) / 1e9; }
inline double ps_to_us(TimePs t) { return static_cast<double>(t) / 1e6; }

// Rounds up so that a non-zero duration never collapses to zero time. A
// duration past the clock's range (or NaN) is kTimeNever, which the engine
// refuses to schedule (ClockOverflow) instead of the negative time a
// converted overflow would give.
inline TimePs seconds_to_ps(double seconds) {
  if (seconds <= 0.0) return 0;
  const double ps = std::ceil(seconds * 1e12);
  if (!(ps < static_cast<double>(kTimeNever))) return kTimeNever;
  return static_cast<TimePs>(ps);
}

// `at` + `delay`, or kTimeNever when the sum would pass the clock's range
// (which the engine then refuses): a sum of times never wraps negative.
inline TimePs later_by(TimePs at, TimePs delay) { return delay >= kTimeNever - at ? kTimeNever : at + delay; }

// Bytes per second, per direction where a link is concerned.
struct Bandwidth {
  double bytes_per_s = 0.0;
  static constexpr Bandwidth gigabytes_per_s(double gbps) { return {gbps * 1e9}; }
  constexpr double gb_per_s() const { return bytes_per_s / 1e9; }
  // Time to move `bytes` at this rate, rounded up to whole picoseconds.
  TimePs transfer_time(double bytes) const { return seconds_to_ps(bytes / bytes_per_s); }
  friend constexpr bool operator==(Bandwidth, Bandwidth) = default;
  friend constexpr auto operator<=>(Bandwidth, Bandwidth) = default;
};
inline constexpr Bandwidth operator*(Bandwidth b, double k) { return {b.bytes_per_s * k}; }

// Floating-point operations per second.
struct FlopRate {
  double flops_per_s = 0.0;
  static constexpr FlopRate teraflops(double tf) { return {tf * 1e12}; }
  constexpr double tflop_per_s() const { return flops_per_s / 1e12; }
  friend constexpr bool operator==(FlopRate, FlopRate) = default;
  friend constexpr auto operator<=>(FlopRate, FlopRate) = default;
};
inline constexpr FlopRate operator*(FlopRate r, double k) { return {r.flops_per_s * k}; }

}  // namespace simctl
