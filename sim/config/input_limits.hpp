#pragma once
// The largest inputs simctl accepts, and the range of each physical
// quantity. An input past them would cost more memory or time than anyone
// could want, or overflow a 64-bit count, so it is refused as it is read,
// with its size and the limit, before anything is built from it.
#include <cstdint>
#include <string>

namespace simctl {

// Files read whole into memory: YAML configs and catalogues, trace JSON.
inline constexpr std::uintmax_t kMaxYamlFileBytes = 64ull << 20;  // 64 MiB; shipped files are < 100 KB
inline constexpr std::uintmax_t kMaxTraceFileBytes = 1ull << 30;  // 1 GiB; about 10 GB once parsed

// Quantities. Time is int64 picoseconds (about 106 days) and sizes int64
// bytes, so both stop below 2^63; rates are kept to what makes durations of
// real transfers and kernels fit in that range.
inline constexpr double kMaxSizeBytes = 9.2e18;         // just below 2^63
inline constexpr double kMaxTimeSeconds = 9.2e6;        // 2^63 ps, about 106 days
inline constexpr double kMinBandwidthBytesPerS = 1e3;   // 1 KB/s
inline constexpr double kMaxBandwidthBytesPerS = 1e18;  // 1 EB/s
inline constexpr double kMinFlopRate = 1e6;             // 1 MFLOP/s
inline constexpr double kMaxFlopRate = 1e21;            // 1 ZFLOP/s
inline constexpr double kMaxPowerWatts = 1e6;           // 1 MW: a typo guard for one part's power

// Throws ConfigError at `path` when the file is larger than `limit_bytes`,
// saying both sizes; `what` names the kind of file ("config", "trace").
void check_file_size(const std::string& path, std::uintmax_t limit_bytes, const std::string& what);

}  // namespace simctl
