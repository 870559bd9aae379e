#include "sim/study/study_points.hpp"

#include <limits>

#include "sim/core/digit_groups.hpp"

namespace simctl {

std::uint64_t point_count(const Study& study) {
  std::uint64_t count = 1;
  for (const AxisGroup& g : study.groups) {
    if (count > std::numeric_limits<std::uint64_t>::max() / g.size()) {
      throw ConfigError(study.axes_origin, "axes", "the axes make more than 2^64 points; vary fewer fields");
    }
    count *= g.size();
  }
  return count;
}

void check_point_count(const Study& study, bool confirmed) {
  const std::uint64_t count = point_count(study);
  if (count <= kConfirmPointCount || confirmed) return;
  throw ConfigError(study.axes_origin, "axes",
                    "the axes make " + with_commas(count) + " points, over " + with_commas(kConfirmPointCount) +
                        "; pass --yes to run them all, or vary fewer values");
}

std::vector<std::size_t> point_value_indices(const Study& study, std::uint64_t point) {
  // Mixed radix, the last group the fastest digit.
  std::vector<std::size_t> by_group(study.groups.size());
  for (std::size_t g = study.groups.size(); g-- > 0;) {
    by_group[g] = static_cast<std::size_t>(point % study.groups[g].size());
    point /= study.groups[g].size();
  }
  std::vector<std::size_t> indices;
  for (std::size_t g = 0; g < study.groups.size(); ++g) {
    for (std::size_t a = 0; a < study.groups[g].axes.size(); ++a) indices.push_back(by_group[g]);
  }
  return indices;
}

ConfigOverrides point_overrides(const Study& study, std::uint64_t point) {
  const std::vector<std::size_t> indices = point_value_indices(study, point);
  const std::vector<const StudyAxis*> axes = study.axes();
  ConfigOverrides overrides;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const AxisValue& v = axes[a]->values[indices[a]];
    overrides.push_back({axes[a]->field, v.text, v.origin});
  }
  return overrides;
}

}  // namespace simctl
