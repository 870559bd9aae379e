#include "sim/study/study_fields.hpp"

#include <algorithm>
#include <optional>
#include <string>

namespace simctl {
namespace {

// "nodes[0]" -> "nodes[]": list positions do not change which section applies.
std::string without_index(const std::string& name) {
  const auto open = name.find('[');
  return open == std::string::npos ? name : name.substr(0, open) + "[]";
}

std::string bare_name(const std::string& name) { return name.substr(0, name.find('[')); }

std::vector<std::string> split(const std::string& text, char separator) {
  std::vector<std::string> parts;
  std::size_t start = 0;
  for (std::size_t at; (at = text.find(separator, start)) != std::string::npos; start = at + 1) {
    parts.push_back(text.substr(start, at - start));
  }
  parts.push_back(text.substr(start));
  return parts;
}

// A section's place as path components, variants (":inference", ":cnn")
// dropped: "workload.model:cnn.layers[]:conv" -> {workload, model, layers[]}.
std::vector<std::string> section_components(const std::string& name) {
  std::vector<std::string> parts = split(name, '.');
  for (std::string& part : parts) part = part.substr(0, part.find(':'));
  return parts;
}

bool is_placeholder(const std::string& component) { return component.size() > 2 && component.front() == '<'; }

bool components_match(const std::vector<std::string>& section, const std::vector<std::string>& path,
                      std::size_t offset) {
  if (path.size() != section.size() + offset) return false;
  for (std::size_t i = 0; i < section.size(); ++i) {
    const std::string& p = path[offset + i];
    if (section[i] == p) continue;
    if (!is_placeholder(section[i]) || p.find('[') != std::string::npos) return false;
  }
  return true;
}

// `links[]` and `parts.<group>` sit under the system or under a node template.
bool section_applies(const std::vector<std::string>& section, const std::vector<std::string>& parent) {
  if (components_match(section, parent, 0)) return true;
  if (section.front() != "links[]" && section.front() != "parts") return false;
  if (components_match(section, parent, 1) && parent[0] == "system") return true;
  return components_match(section, parent, 3) && parent[0] == "system" && parent[1] == "node_templates" &&
         parent[2].find('[') == std::string::npos;
}

// The schema sections (every variant) that describe the mapping at `parent`.
std::vector<const SchemaSection*> sections_at(const ConfigSchema& schema, const std::vector<std::string>& parent) {
  std::vector<const SchemaSection*> found;
  if (parent.empty()) {
    found.push_back(&schema.section("run"));
    return found;
  }
  for (const SchemaSection& section : schema.sections()) {
    if (section.name == "run" || section.name.find("_file") != std::string::npos) continue;
    if (section.name.rfind("study", 0) == 0) continue;
    if (section_applies(section_components(section.name), parent)) found.push_back(&section);
  }
  return found;
}

const SchemaField* find_field(const SchemaSection& section, const std::string& name) {
  for (const SchemaField& f : section.fields) {
    if (f.name == name) return &f;
  }
  return nullptr;
}

std::string join(const std::vector<std::string>& parts, std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) text += (i ? "." : "") + parts[i];
  return text;
}

enum class ValueKind { unchecked, bandwidth, size, time, integer, number, choice };

bool starts_with(const std::string& text, std::string_view prefix) { return text.rfind(prefix, 0) == 0; }

// What a field's values must be, from its schema type. A type that offers
// a word besides the number ("integer 1 … 64, or `global`") is not checked.
ValueKind value_kind(const SchemaField& field) {
  if (field.type.empty()) return field.choices.empty() ? ValueKind::unchecked : ValueKind::choice;
  if (!field.choices.empty() || field.type.find('`') != std::string::npos) return ValueKind::unchecked;
  if (starts_with(field.type, "bandwidth")) return ValueKind::bandwidth;
  if (starts_with(field.type, "size")) return ValueKind::size;
  if (starts_with(field.type, "time")) return ValueKind::time;
  if (starts_with(field.type, "integer")) return ValueKind::integer;
  if (starts_with(field.type, "number")) return ValueKind::number;
  return ValueKind::unchecked;
}

void check_value(const ConfigNode& value, ValueKind kind, const SchemaField& field) {
  switch (kind) {
    case ValueKind::unchecked: return;
    case ValueKind::bandwidth: value.as_bandwidth(); return;
    case ValueKind::size: value.as_size(); return;
    case ValueKind::time: value.as_time(); return;
    case ValueKind::integer: value.as_integer(); return;
    case ValueKind::number: value.as_number(); return;
    case ValueKind::choice:
      if (!value.is_scalar() ||
          std::find(field.choices.begin(), field.choices.end(), value.as_string()) == field.choices.end()) {
        value.fail("'" + (value.is_scalar() ? value.as_string() : std::string("(not a word)")) + "' is not valid for " +
                   field.name + "; choose " + join_choices(field.choices));
      }
      return;
  }
}

// The kind every variant agrees on; unchecked when they differ.
ValueKind agreed_kind(const std::vector<const SchemaField*>& fields) {
  const ValueKind first = value_kind(*fields.front());
  for (const SchemaField* f : fields) {
    if (value_kind(*f) != first) return ValueKind::unchecked;
  }
  return first;
}

}  // namespace

void check_axis_field(const ConfigNode& field, const std::vector<ConfigNode>& values, const ConfigSchema& schema) {
  const std::string path = field.as_string();
  const std::vector<std::string> names = split(path, '.');
  std::vector<std::string> normalised;
  for (const std::string& name : names) {
    if (name.empty() || name == "[]" || name.front() == '[') {
      field.fail("'" + path +
                 "' is not a field path; write names joined by dots, with [i] for a list element "
                 "(`workload.parallel.tensor`, `system.nodes[0].count`)");
    }
    normalised.push_back(without_index(name));
  }
  std::vector<const SchemaField*> last;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::vector<std::string> parent(normalised.begin(), normalised.begin() + static_cast<long>(i));
    const std::vector<const SchemaSection*> sections = sections_at(schema, parent);
    const bool final = i + 1 == names.size();
    // A name that is no schema section (a template or part group name, a
    // mapping of names) is free, unless the field itself would sit in it.
    if (sections.empty()) {
      if (final) field.fail("'" + path + "' names no config field: '" + join(names, i) + "' has no fields");
      continue;
    }
    const std::string name = bare_name(names[i]);
    std::vector<const SchemaField*> found;
    for (const SchemaSection* s : sections) {
      if (const SchemaField* f = find_field(*s, name)) found.push_back(f);
    }
    if (found.empty()) {
      std::vector<std::string> valid;
      for (const SchemaSection* s : sections) {
        for (const std::string& key : s->keys) {
          if (std::find(valid.begin(), valid.end(), key) == valid.end()) valid.push_back(key);
        }
      }
      field.fail("'" + path + "' names no config field: '" + name + "' is not a field of " +
                 (i == 0 ? std::string("a run config") : "`" + join(names, i) + "`") + "; valid fields are " +
                 join_choices(valid));
    }
    if (final) last = found;
  }
  // A list element ("gpus[2]") holds one item of the field, not the field's own value.
  if (names.back().find('[') != std::string::npos) return;
  const ValueKind kind = agreed_kind(last);
  for (const ConfigNode& value : values) {
    try {
      check_value(value, kind, *last.front());
    } catch (const ConfigError& e) {
      throw ConfigError(e.where(), e.field(), e.problem() + " (a value of axis " + path + ")");
    }
  }
}

}  // namespace simctl
