#include "sim/topology/part_selector.hpp"

#include <charconv>
#include <regex>
#include <stdexcept>

namespace simctl {
namespace {

std::invalid_argument bad_selector(std::string_view text, const std::string& why) {
  return std::invalid_argument("'" + std::string(text) + "' is not a part selector (" + why + "); " +
                               std::string(kSelectorSyntax));
}

int parse_index(std::string_view whole, std::string_view digits) {
  int value = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), value);
  if (ec != std::errc() || end != digits.data() + digits.size() || value < 0) {
    throw bad_selector(whole, "'" + std::string(digits) + "' is not an index");
  }
  return value;
}

// Inside the brackets: "*", "i" or "i..j".
IndexRange parse_range(std::string_view whole, std::string_view inside) {
  if (inside == "*") return IndexRange{};
  const auto dots = inside.find("..");
  if (dots == std::string_view::npos) {
    const int i = parse_index(whole, inside);
    return IndexRange{false, i, i};
  }
  const int first = parse_index(whole, inside.substr(0, dots));
  const int last = parse_index(whole, inside.substr(dots + 2));
  if (last < first) throw bad_selector(whole, "the range ends before it starts");
  return IndexRange{false, first, last};
}

}  // namespace

PartSelector parse_part_selector(std::string_view text) {
  static const std::regex shape(R"(^(?:node\[([^\]]*)\]\.)?([A-Za-z_][A-Za-z0-9_]*)(?:\[([^\]]*)\])?$)");
  const std::string s(text);
  std::smatch m;
  if (!std::regex_match(s, m, shape)) throw bad_selector(text, "unexpected characters");
  PartSelector out;
  out.text = s;
  if (m[1].matched) out.nodes = parse_range(text, std::string_view(s).substr(m.position(1), m.length(1)));
  out.group = m[2].str();
  if (m[3].matched) out.indices = parse_range(text, std::string_view(s).substr(m.position(3), m.length(3)));
  return out;
}

std::optional<std::vector<int>> select_indices(const IndexRange& range, int count) {
  const int first = range.all ? 0 : range.first;
  const int last = range.all ? count - 1 : range.last;
  if (!range.all && last >= count) return std::nullopt;
  std::vector<int> out;
  for (int i = first; i <= last; ++i) out.push_back(i);
  return out;
}

std::string describe_group(const std::string& group, int count) {
  if (count == 1) return group + " (one part)";
  return group + "[0.." + std::to_string(count - 1) + "]";
}

}  // namespace simctl
