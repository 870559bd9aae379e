#pragma once
// The points of a study: the product of its axis groups, numbered so that
// the first group varies slowest (like nested loops written in file order).
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_overrides.hpp"
#include "sim/study/study_file.hpp"

namespace simctl {

// Points over which a study is refused unless the user confirms (--yes).
inline constexpr std::uint64_t kConfirmPointCount = 1'000'000;

// The number of points; ConfigError at `axes:` when it does not fit 64 bits.
std::uint64_t point_count(const Study& study);

// Refuses a study over kConfirmPointCount points unless `confirmed`,
// saying how many there are and to pass --yes.
void check_point_count(const Study& study, bool confirmed);

// Each axis's value index at `point`, in Study::axes() order.
std::vector<std::size_t> point_value_indices(const Study& study, std::uint64_t point);

// The overrides that make `point` from the base config, in Study::axes() order.
ConfigOverrides point_overrides(const Study& study, std::uint64_t point);

}  // namespace simctl
