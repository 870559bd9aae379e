#pragma once
// The text that names parts in a link's `between:` list:
//   gpu          every part of group "gpu"
//   gpu[3]       one part
//   gpu[0..3]    an inclusive range
//   gpu[*]       every part (same as the bare name)
//   node[0..3].nic[2]   system-level links only: parts inside nodes
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simctl {

struct IndexRange {
  bool all = true;  // "[*]"
  int first = 0;    // inclusive
  int last = 0;     // inclusive
};

struct PartSelector {
  std::optional<IndexRange> nodes;  // set when the text starts "node[...]."
  std::string group;
  IndexRange indices;  // all by default
  std::string text;    // as written, for messages
};

inline constexpr std::string_view kSelectorSyntax =
    "write 'group', 'group[i]', 'group[i..j]' or 'group[*]' (and 'node[...].group[...]' at system level)";

// Throws std::invalid_argument explaining the syntax when `text` does not parse.
PartSelector parse_part_selector(std::string_view text);

// The indices `range` selects out of `count` parts, ascending; std::nullopt
// when the range reaches past the last part.
std::optional<std::vector<int>> select_indices(const IndexRange& range, int count);

// "gpu[0..7]"-style description of a group of `count` parts, for messages.
std::string describe_group(const std::string& group, int count);

}  // namespace simctl
