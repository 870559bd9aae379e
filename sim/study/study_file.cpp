#include "sim/study/study_file.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include "sim/config/config_node.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/config/path_check.hpp"
#include "sim/study/study_fields.hpp"

namespace simctl {
namespace {

constexpr std::array<std::string_view, 6> kObjectives{"throughput",
                                                      "step_time",
                                                      "mfu",
                                                      "cost_per_million_tokens",
                                                      "energy_per_million_tokens",
                                                      "owned_cost_per_million_tokens"};

// The value as one line of YAML: how overrides carry it and rows print it.
std::string compact_yaml(const YAML::Node& node) {
  YAML::Emitter out;
  out.SetMapFormat(YAML::Flow);
  out.SetSeqFormat(YAML::Flow);
  out << node;
  return out.c_str();
}

StudyAxis read_axis(const ConfigNode& node) {
  expect_section(node, "study.axes[]");
  const ConfigNode field = node.child("field");
  const ConfigNode values = node.child("values");
  if (!values.is_sequence()) values.fail("expected a list of values, e.g. [1, 2, 4]");
  const std::vector<ConfigNode> elements = values.elements();
  if (elements.empty()) values.fail("the axis has no values; give at least one");
  check_axis_field(field, elements);
  StudyAxis axis{field.as_string(), {}};
  for (const ConfigNode& v : elements) axis.values.push_back({compact_yaml(v.yaml()), v.location()});
  return axis;
}

AxisGroup read_group(const ConfigNode& node) {
  if (!node.is_map() || !node.has("zip")) return AxisGroup{{read_axis(node)}};
  expect_section(node, "study.axes[]:zip");
  const ConfigNode zip = node.child("zip");
  if (!zip.is_sequence() || zip.elements().empty()) zip.fail("expected a list of axes that move together");
  AxisGroup group;
  for (const ConfigNode& axis : zip.elements()) {
    group.axes.push_back(read_axis(axis));
    if (group.axes.back().values.size() != group.axes.front().values.size()) {
      axis.fail("zipped axes move together, so they need as many values each: " + group.axes.front().field + " has " +
                std::to_string(group.axes.front().values.size()) + ", " + group.axes.back().field + " has " +
                std::to_string(group.axes.back().values.size()));
    }
  }
  return group;
}

StudyObjective read_objective(const ConfigNode& root) {
  const auto node = root.optional_child("objective");
  if (!node) return StudyObjective::throughput;
  const std::string word = node->as_string();
  const auto found = std::find(kObjectives.begin(), kObjectives.end(), word);
  if (found == kObjectives.end()) {
    node->fail("'" + word + "' is not valid; choose " +
               join_choices(std::vector<std::string>(kObjectives.begin(), kObjectives.end())));
  }
  return static_cast<StudyObjective>(found - kObjectives.begin());
}

void check_distinct_fields(const ConfigNode& axes, const std::vector<AxisGroup>& groups) {
  std::set<std::string> seen;
  std::size_t g = 0;
  for (const AxisGroup& group : groups) {
    for (const StudyAxis& axis : group.axes) {
      if (!seen.insert(axis.field).second) {
        axes.elements()[g].fail("field " + axis.field +
                                " is varied by two axes; give it one axis, or zip the axes that move together");
      }
    }
    ++g;
  }
}

}  // namespace

std::string_view to_string(StudyObjective objective) { return kObjectives[static_cast<std::size_t>(objective)]; }

std::vector<const StudyAxis*> Study::axes() const {
  std::vector<const StudyAxis*> all;
  for (const AxisGroup& g : groups) {
    for (const StudyAxis& a : g.axes) all.push_back(&a);
  }
  return all;
}

Study parse_study(const std::string& text, const std::string& file_label, bool check_base) {
  const ConfigNode root = ConfigNode::load_string(text, file_label);
  expect_section(root, "study");
  Study study;
  study.file = file_label;
  study.text = text;
  study.title = root.string("study");
  study.description = root.string_or("description", "");
  const ConfigNode base = root.child("base");
  study.base = base.as_string();
  study.base_path = (std::filesystem::path(file_label).parent_path() / study.base).lexically_normal().string();
  if (const std::string why = check_base ? file_problem(study.base_path) : ""; !why.empty()) {
    base.fail("the base config '" + study.base_path + "' " + why + " (a path relative to the study file)");
  }
  study.objective = read_objective(root);
  const ConfigNode axes = root.child("axes");
  study.axes_origin = axes.location();
  if (!axes.is_sequence() || axes.elements().empty()) {
    axes.fail("expected a list of axes, e.g. - {field: workload.micro_batch, values: [1, 2]}");
  }
  for (const ConfigNode& node : axes.elements()) study.groups.push_back(read_group(node));
  check_distinct_fields(axes, study.groups);
  return study;
}

Study load_study(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(SourceLocation{path, 0, 0}, "", "cannot open the study file for reading");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_study(text.str(), path, true);
}

std::string study_fingerprint(const Study& study) {
  std::uint64_t hash = 14695981039346656037ull;
  for (unsigned char c : study.text) hash = (hash ^ c) * 1099511628211ull;
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

}  // namespace simctl
