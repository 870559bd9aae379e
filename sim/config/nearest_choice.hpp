#pragma once
// "did you mean `micro_batch`?": the valid word a mistyped one was most
// likely meant to be. A typo is a few edits away (a missing underscore, two
// swapped letters, a letter off), so the nearest word within a third of the
// typed word's length is suggested, and nothing when every word is further.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simctl {

// Edits (insert, delete, substitute, swap two neighbours) from `a` to `b`,
// ignoring case.
std::size_t edit_distance(std::string_view a, std::string_view b);

// The option nearest `typed`, if one is close enough to be a typo of it;
// ties go to the earlier option, so the answer never depends on anything
// but the list's order.
std::optional<std::string> nearest_choice(std::string_view typed, const std::vector<std::string>& options);

// " (did you mean `x`?)" or "".
std::string did_you_mean(std::string_view typed, const std::vector<std::string>& options);

}  // namespace simctl
