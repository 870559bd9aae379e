#include "sim/config/quantity.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <utility>

namespace simctl {
namespace {

struct UnitFactor {
  std::string_view unit;
  double factor;
};

// Splits "3.35 TB/s" into 3.35 and "TB/s"; whitespace between is optional.
std::optional<std::pair<double, std::string_view>> split_number(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  double value = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end == text.data() || !std::isfinite(value)) return std::nullopt;
  std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (!unit.empty() && unit.front() == ' ') unit.remove_prefix(1);
  return std::make_pair(value, unit);
}

template <std::size_t N>
std::optional<double> parse_with(std::string_view text, const std::array<UnitFactor, N>& table) {
  auto split = split_number(text);
  if (!split) return std::nullopt;
  for (const auto& entry : table) {
    if (entry.unit == split->second) return split->first * entry.factor;
  }
  return std::nullopt;
}

constexpr double kKilo = 1e3, kMega = 1e6, kGiga = 1e9, kTera = 1e12, kPeta = 1e15;
constexpr double kKibi = 1024.0, kMebi = kKibi * 1024, kGibi = kMebi * 1024, kTebi = kGibi * 1024, kPebi = kTebi * 1024;

constexpr std::array<UnitFactor, 14> kBandwidthTable{{
    {"b/s", 1.0 / 8},
    {"Kb/s", kKilo / 8},
    {"Mb/s", kMega / 8},
    {"Gb/s", kGiga / 8},
    {"Tb/s", kTera / 8},
    {"B/s", 1.0},
    {"KB/s", kKilo},
    {"MB/s", kMega},
    {"GB/s", kGiga},
    {"TB/s", kTera},
    {"KiB/s", kKibi},
    {"MiB/s", kMebi},
    {"GiB/s", kGibi},
    {"TiB/s", kTebi},
}};

constexpr std::array<UnitFactor, 11> kSizeTable{{
    {"B", 1.0},
    {"KB", kKilo},
    {"MB", kMega},
    {"GB", kGiga},
    {"TB", kTera},
    {"PB", kPeta},
    {"KiB", kKibi},
    {"MiB", kMebi},
    {"GiB", kGibi},
    {"TiB", kTebi},
    {"PiB", kPebi},
}};

constexpr std::array<UnitFactor, 5> kTimeTable{{
    {"ps", 1e-12},
    {"ns", 1e-9},
    {"us", 1e-6},
    {"ms", 1e-3},
    {"s", 1.0},
}};

constexpr std::array<UnitFactor, 4> kFlopTable{{
    {"FLOP/s", 1.0},
    {"GFLOP/s", kGiga},
    {"TFLOP/s", kTera},
    {"PFLOP/s", kPeta},
}};

constexpr std::array<UnitFactor, 3> kPowerTable{{
    {"W", 1.0},
    {"kW", 1e3},
    {"MW", 1e6},
}};

std::string printf_string(const char* fmt, double value, const char* unit) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, fmt, value, unit);
  return buffer;
}

}  // namespace

std::optional<double> parse_bandwidth_bytes_per_s(std::string_view text) { return parse_with(text, kBandwidthTable); }
std::optional<double> parse_size_bytes(std::string_view text) { return parse_with(text, kSizeTable); }
std::optional<double> parse_time_seconds(std::string_view text) { return parse_with(text, kTimeTable); }
std::optional<double> parse_flop_rate(std::string_view text) { return parse_with(text, kFlopTable); }
std::optional<double> parse_power_watts(std::string_view text) { return parse_with(text, kPowerTable); }

std::string format_bytes(double bytes) {
  const double magnitude = std::fabs(bytes);
  if (magnitude >= kGibi) return printf_string("%.2f %s", bytes / kGibi, "GiB");
  if (magnitude >= kMebi) return printf_string("%.2f %s", bytes / kMebi, "MiB");
  if (magnitude >= kKibi) return printf_string("%.2f %s", bytes / kKibi, "KiB");
  return printf_string("%.0f %s", bytes, "B");
}

std::string format_bandwidth(Bandwidth bw) { return printf_string("%.1f %s", bw.bytes_per_s / kGiga, "GB/s"); }

std::string format_time(TimePs t) {
  const double seconds = ps_to_seconds(t);
  if (seconds >= 1.0) return printf_string("%.3f %s", seconds, "s");
  if (seconds >= 1e-3) return printf_string("%.3f %s", seconds * 1e3, "ms");
  if (seconds >= 1e-6) return printf_string("%.3f %s", seconds * 1e6, "us");
  return printf_string("%.0f %s", seconds * 1e9, "ns");
}

}  // namespace simctl
