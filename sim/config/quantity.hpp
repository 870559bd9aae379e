#pragma once
// Parsing of quantities written with units, as users write them in configs:
// "400 Gb/s", "3.35 TB/s", "80 GiB", "2 us", "989 TFLOP/s". Decimal prefixes
// are powers of 1000, binary ones (KiB, MiB, GiB, TiB) powers of 1024, and a
// lower-case 'b' means bits.
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/units.hpp"

namespace simctl {

// Each returns nullopt when the text is not a number followed by a valid unit
// of that dimension. Negative values are rejected by the callers, which know
// the field name.
std::optional<double> parse_bandwidth_bytes_per_s(std::string_view text);
std::optional<double> parse_size_bytes(std::string_view text);
std::optional<double> parse_time_seconds(std::string_view text);
std::optional<double> parse_flop_rate(std::string_view text);
std::optional<double> parse_power_watts(std::string_view text);

// The units accepted for each dimension, for error messages.
inline constexpr std::string_view kBandwidthUnits =
    "b/s, Kb/s, Mb/s, Gb/s, Tb/s, B/s, KB/s, MB/s, GB/s, TB/s, KiB/s, MiB/s, GiB/s, TiB/s";
inline constexpr std::string_view kSizeUnits = "B, KB, MB, GB, TB, PB, KiB, MiB, GiB, TiB, PiB";
inline constexpr std::string_view kTimeUnits = "ps, ns, us, ms, s";
inline constexpr std::string_view kFlopRateUnits = "FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s";
inline constexpr std::string_view kPowerUnits = "W, kW, MW";

// Human-readable forms used in reports and error messages.
std::string format_bytes(double bytes);      // "1.00 GiB"
std::string format_bandwidth(Bandwidth bw);  // "450.0 GB/s"
std::string format_time(TimePs t);           // "12.345 ms"

}  // namespace simctl
