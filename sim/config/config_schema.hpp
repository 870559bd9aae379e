#pragma once
// The fields every user-facing config section accepts, read from
// sim/config/config_schema.yaml. Loaders validate a mapping against its
// section (expect_section), and docs/config.md's field reference is rendered
// from the same data (schema_markdown.hpp), so what is accepted and what is
// documented cannot differ.
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.hpp"

namespace simctl {

struct SchemaField {
  std::string name;
  std::string type;                  // what may be written; may be empty when `choices` say it
  std::vector<std::string> choices;  // the valid words, if the field takes one
  std::string default_value;         // "required", "none" or the value used when absent
  std::string meaning;               // one line
};

struct SchemaSection {
  std::string name;  // where it sits in a config, e.g. "workload.parallel"
  std::string title;
  std::string doc;  // optional prose
  std::vector<SchemaField> fields;
  std::vector<std::string> keys;  // the fields' names, in order
};

class ConfigSchema {
 public:
  // Reads and checks a schema file (ConfigError on a malformed one).
  static ConfigSchema load_file(const std::string& path);
  static ConfigSchema parse(const ConfigNode& root);
  static std::string default_path();  // <data root>/sim/config/config_schema.yaml

  const std::vector<SchemaSection>& sections() const { return sections_; }
  // A loader naming a section the schema lacks is a programming error:
  // std::logic_error, listing the sections there are.
  const SchemaSection& section(std::string_view name) const;

 private:
  std::vector<SchemaSection> sections_;
};

// The schema at default_path(), read once on first use and never changed
// after (the static is const and its initialisation thread-safe).
const ConfigSchema& config_schema();

// Rejects keys of `node` outside the section's fields, naming the valid ones.
void expect_section(const ConfigNode& node, std::string_view section, const ConfigSchema& schema = config_schema());

// The section's field names, for readers that are not ConfigNode (JSON).
const std::vector<std::string>& schema_keys(std::string_view section);

}  // namespace simctl
