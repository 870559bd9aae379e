#include "sim/config/nearest_choice.hpp"

#include <algorithm>
#include <cctype>

namespace simctl {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  };
  // Three rows of the optimal-string-alignment table: two back for swaps.
  std::vector<std::size_t> before(b.size() + 1), previous(b.size() + 1), current(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) previous[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    current[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t substitute = previous[j - 1] + (same(a[i - 1], b[j - 1]) ? 0 : 1);
      current[j] = std::min({previous[j] + 1, current[j - 1] + 1, substitute});
      if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]))
        current[j] = std::min(current[j], before[j - 2] + 1);
    }
    std::swap(before, previous);
    std::swap(previous, current);
  }
  return previous[b.size()];
}

std::optional<std::string> nearest_choice(std::string_view typed, const std::vector<std::string>& options) {
  const std::size_t allowed = std::max<std::size_t>(1, typed.size() / 3);
  std::optional<std::string> best;
  std::size_t best_distance = allowed + 1;
  for (const std::string& option : options) {
    const std::size_t d = edit_distance(typed, option);
    if (d > 0 && d < best_distance) {
      best = option;
      best_distance = d;
    }
  }
  return best;
}

std::string did_you_mean(std::string_view typed, const std::vector<std::string>& options) {
  const auto nearest = nearest_choice(typed, options);
  return nearest ? " (did you mean `" + *nearest + "`?)" : "";
}

}  // namespace simctl
