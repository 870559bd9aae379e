#include "sim/cli/set_option.hpp"

#include <string>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/study/study_fields.hpp"

namespace po = boost::program_options;

namespace simctl {

void add_set_option(po::options_description& named) {
  named.add_options()("set", po::value<std::vector<std::string>>()->composing()->value_name("FIELD=VALUE"),
                      "write VALUE (YAML: 4, 400 Gb/s, systems/dgx_a100.yaml) into the config's FIELD "
                      "(workload.parallel.tensor, system.nodes[0].count, system) for this run; repeatable");
}

namespace {

// The checks a study axis gets (sim/study/study_fields.hpp): FIELD is a field
// of the config schema and VALUE has its unit, before anything is loaded.
void check_set_field(const std::string& field, const std::string& value, const SourceLocation& origin) {
  try {
    const ConfigNode path = ConfigNode::load_string(field, origin.file);
    check_axis_field(path, {ConfigNode::load_string(value, origin.file)});
  } catch (const ConfigError& e) {
    // Study wording ("a value of axis ...") has no place on a command line.
    std::string problem = e.problem();
    const std::string axis_note = " (a value of axis " + field + ")";
    if (problem.size() > axis_note.size() && problem.ends_with(axis_note))
      problem.resize(problem.size() - axis_note.size());
    throw ConfigError(origin, field, problem);
  }
}

}  // namespace

ConfigOverrides set_overrides(const ParsedOptions& options) {
  ConfigOverrides overrides;
  if (!options.values.count("set")) return overrides;
  for (const std::string& given : options.values["set"].as<std::vector<std::string>>()) {
    const std::size_t equals = given.find('=');
    const SourceLocation origin{"--set " + given, 0, 0};
    if (equals == std::string::npos || equals == 0 || equals + 1 == given.size()) {
      throw ConfigError(origin, "",
                        "expected FIELD=VALUE, a config field and the YAML written into it "
                        "(e.g. --set workload.parallel.tensor=4)");
    }
    // The origin is the option as typed: an error in the value names it.
    const std::string field = given.substr(0, equals), value = given.substr(equals + 1);
    check_set_field(field, value, origin);
    overrides.push_back({field, value, origin});
  }
  return overrides;
}

void print_set_line(const ConfigOverrides& overrides, std::ostream& out) {
  if (overrides.empty()) return;
  out << "with";
  for (const ConfigOverride& o : overrides) out << " --set " << o.path << "=" << o.value_yaml;
  out << "\n";
}

}  // namespace simctl
