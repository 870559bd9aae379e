#include "sim/study/axis_study.hpp"

#include <yaml-cpp/yaml.h>

#include <filesystem>
#include <set>

#include "sim/config/config_node.hpp"
#include "sim/study/study_fields.hpp"

namespace simctl {
namespace {

struct CheckedAxis {
  std::string field;
  YAML::Node values;
};

CheckedAxis checked_axis(const std::string& given) {
  const SourceLocation origin{"--axis " + given, 0, 0};
  const std::size_t equals = given.find('=');
  if (equals == std::string::npos || equals == 0) {
    throw ConfigError(origin, "",
                      "expected FIELD=VALUES, a config field and a YAML list of its values "
                      "(e.g. --axis 'workload.micro_batch=[1, 2, 4]')");
  }
  const std::string field = given.substr(0, equals);
  try {
    const ConfigNode values = ConfigNode::load_string(given.substr(equals + 1), origin.file);
    if (!values.is_sequence() || values.elements().empty()) {
      throw ConfigError(origin, field, "expected a non-empty YAML list of values, e.g. [1, 2, 4]");
    }
    check_axis_field(ConfigNode::load_string(field, origin.file), values.elements());
    return {field, values.yaml()};
  } catch (const ConfigError& e) {
    // Study wording ("a value of axis ...") reads the same here; the place is the option.
    throw ConfigError(origin, field, e.problem());
  }
}

}  // namespace

Study axis_study(const std::string& config_path, const std::vector<std::string>& given) {
  std::set<std::string> fields;
  YAML::Node axes(YAML::NodeType::Sequence);
  std::string title = std::filesystem::path(config_path).filename().string() + " over";
  for (const std::string& g : given) {
    const CheckedAxis axis = checked_axis(g);
    if (!fields.insert(axis.field).second) {
      throw ConfigError(SourceLocation{"--axis " + g, 0, 0}, axis.field,
                        "varied by two --axis options; give each field one");
    }
    YAML::Node node(YAML::NodeType::Map);
    node["field"] = axis.field;
    node["values"] = axis.values;
    axes.push_back(node);
    title += (fields.size() == 1 ? " " : " x ") + axis.field;
  }
  YAML::Node root(YAML::NodeType::Map);
  root["study"] = title;
  root["base"] = std::filesystem::absolute(config_path).lexically_normal().string();
  root["axes"] = axes;
  YAML::Emitter text;
  text << root;
  return parse_study(text.c_str(), "--axis", true);
}

}  // namespace simctl
