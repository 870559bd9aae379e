#include "sim/config/config_overrides.hpp"

#include <charconv>
#include <optional>

namespace simctl {
namespace {

// One step of a path: a mapping key, or a list index.
struct PathStep {
  std::string key;
  std::optional<std::size_t> index;
};

[[noreturn]] void fail_at(const ConfigOverride& o, const std::string& problem) {
  throw ConfigError(o.origin, o.path, problem);
}

std::vector<PathStep> parse_path(const ConfigOverride& o) {
  std::vector<PathStep> steps;
  std::string_view rest = o.path;
  while (!rest.empty()) {
    const std::size_t end = rest.find_first_of(".[");
    const std::string_view key = rest.substr(0, end);
    if (key.empty() && (end == std::string_view::npos || rest[end] == '.')) fail_at(o, "empty name in field path");
    if (!key.empty()) steps.push_back({std::string(key), std::nullopt});
    if (end == std::string_view::npos) break;
    rest.remove_prefix(end);
    if (rest[0] == '.') {
      rest.remove_prefix(1);
      if (rest.empty()) fail_at(o, "the field path ends in '.'");
      continue;
    }
    const std::size_t close = rest.find(']');
    std::size_t index = 0;
    const char* first = rest.data() + 1;
    const char* last = rest.data() + (close == std::string_view::npos ? rest.size() : close);
    const auto parsed = std::from_chars(first, last, index);
    if (close == std::string_view::npos || close == 1 || parsed.ptr != last || parsed.ec != std::errc()) {
      fail_at(o, "expected a list index such as [0] in the field path");
    }
    steps.push_back({"", index});
    rest.remove_prefix(close + 1);
    if (!rest.empty() && rest[0] == '.') rest.remove_prefix(1);
  }
  if (steps.empty()) fail_at(o, "empty field path");
  return steps;
}

std::string describe_prefix(const std::vector<PathStep>& steps, std::size_t count) {
  std::string out;
  for (std::size_t i = 0; i < count; ++i) {
    if (steps[i].index) {
      out += "[" + std::to_string(*steps[i].index) + "]";
    } else {
      out += (out.empty() ? "" : ".") + steps[i].key;
    }
  }
  return out;
}

YAML::Node parse_value(const ConfigOverride& o) {
  try {
    return YAML::Load(o.value_yaml);
  } catch (const YAML::ParserException& e) {
    fail_at(o, "the value '" + o.value_yaml + "' is not valid YAML: " + e.msg);
  }
}

// Walks `tree` along steps[first..] and writes the value at the last step.
void write_at(YAML::Node tree, const std::vector<PathStep>& steps, std::size_t first, const ConfigOverride& o) {
  YAML::Node node = tree;
  for (std::size_t i = first; i < steps.size(); ++i) {
    const bool last = i + 1 == steps.size();
    const PathStep& step = steps[i];
    const std::string where = describe_prefix(steps, i);
    if (step.index) {
      if (!node.IsSequence() || *step.index >= node.size()) {
        fail_at(o, "'" + where + "' has no element [" + std::to_string(*step.index) + "]" +
                       (node.IsSequence() ? " (it has " + std::to_string(node.size()) + ")" : " (it is not a list)"));
      }
    } else if (!node.IsMap()) {
      fail_at(o, "'" + where + "' is " +
                     (node.IsScalar() ? "the value '" + node.Scalar() +
                                            "', not a mapping; a path cannot lead through a file it names "
                                            "(sweep the file name itself, or write that part inline)"
                                      : std::string("not a mapping")));
    } else if (!last && !node[step.key]) {
      // A section the base leaves out (`pricing:`, `workload.parallel:`)
      // starts empty; the loader then checks the keys written into it.
      node[step.key] = YAML::Node(YAML::NodeType::Map);
    }
    if (last) {
      if (step.index) {
        node[*step.index] = parse_value(o);
      } else {
        node[step.key] = parse_value(o);
      }
      return;
    }
    // Reassigning a yaml-cpp handle rebinds it (it does not write through).
    if (step.index) {
      node.reset(node[*step.index]);
    } else {
      node.reset(node[step.key]);
    }
  }
}

bool lies_below(std::string_view field, std::string_view path) {
  if (field.substr(0, path.size()) != path) return false;
  return field.size() == path.size() || field[path.size()] == '.' || field[path.size()] == '[';
}

}  // namespace

std::string top_level_key(std::string_view path) { return std::string(path.substr(0, path.find_first_of(".["))); }

void apply_overrides(YAML::Node tree, std::string_view prefix, const ConfigOverrides& overrides) {
  for (const ConfigOverride& o : overrides) {
    if (!prefix.empty() && top_level_key(o.path) != prefix) continue;
    const std::vector<PathStep> steps = parse_path(o);
    if (!prefix.empty() && steps.size() == 1) fail_at(o, "cannot replace a whole section here");
    write_at(tree, steps, prefix.empty() ? 0 : 1, o);
  }
}

void blame_override(const ConfigError& error, const ConfigOverrides& overrides) {
  for (const ConfigOverride& o : overrides) {
    if (lies_below(error.field(), o.path)) throw ConfigError(o.origin, error.field(), error.problem());
  }
}

}  // namespace simctl
