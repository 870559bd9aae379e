#include "sim/config/config_schema.hpp"

#include <stdexcept>

#include "sim/config/data_root.hpp"

namespace simctl {
namespace {

std::vector<std::string> parse_choices(const ConfigNode& node) {
  std::vector<std::string> out;
  for (const ConfigNode& item : node.elements()) out.push_back(item.as_string());
  if (out.empty()) node.fail("list at least one choice, or leave `choices` out");
  return out;
}

SchemaField parse_field(const ConfigNode& node) {
  node.expect_keys({"name", "type", "choices", "default", "meaning"});
  SchemaField f{node.string("name"), node.string_or("type", ""), {}, node.string("default"), node.string("meaning")};
  if (auto c = node.optional_child("choices")) f.choices = parse_choices(*c);
  if (f.type.empty() && f.choices.empty()) node.fail("give the field a `type` or its `choices`");
  if (f.meaning.empty()) node.child("meaning").fail("say in one line what the field means");
  return f;
}

SchemaSection parse_section(const std::string& name, const ConfigNode& node) {
  node.expect_keys({"title", "doc", "fields"});
  SchemaSection s{name, node.string("title"), node.string_or("doc", ""), {}, {}};
  for (const ConfigNode& item : node.child("fields").elements()) {
    SchemaField f = parse_field(item);
    for (const std::string& seen : s.keys) {
      if (seen == f.name) item.child("name").fail("field '" + f.name + "' is listed twice in section '" + name + "'");
    }
    s.keys.push_back(f.name);
    s.fields.push_back(std::move(f));
  }
  if (s.fields.empty()) node.child("fields").fail("a section needs at least one field");
  return s;
}

}  // namespace

ConfigSchema ConfigSchema::load_file(const std::string& path) { return parse(ConfigNode::load_file(path)); }

ConfigSchema ConfigSchema::parse(const ConfigNode& root) {
  root.expect_keys({"sections"});
  ConfigSchema schema;
  for (const auto& [name, node] : root.child("sections").entries()) {
    schema.sections_.push_back(parse_section(name, node));
  }
  return schema;
}

std::string ConfigSchema::default_path() { return data_root() + "/sim/config/config_schema.yaml"; }

// The trace reader asks once per op, so a hit allocates nothing.
const SchemaSection& ConfigSchema::section(std::string_view name) const {
  for (const SchemaSection& s : sections_) {
    if (s.name == name) return s;
  }
  std::vector<std::string> names;
  for (const SchemaSection& s : sections_) names.push_back(s.name);
  throw std::logic_error("unknown schema section '" + std::string(name) + "'; the schema's sections are " +
                         join_choices(names));
}

const ConfigSchema& config_schema() {
  static const ConfigSchema schema = ConfigSchema::load_file(ConfigSchema::default_path());
  return schema;
}

void expect_section(const ConfigNode& node, std::string_view section, const ConfigSchema& schema) {
  node.expect_keys(schema.section(section).keys);
}

const std::vector<std::string>& schema_keys(std::string_view section) { return config_schema().section(section).keys; }

}  // namespace simctl
