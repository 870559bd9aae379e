#include "sim/config/schema_markdown.hpp"

#include "sim/core/marked_block.hpp"

namespace simctl {
namespace {

// A table cell holds one line, and '|' would end the cell.
std::string cell(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '|')
      out += "\\|";
    else
      out += c == '\n' ? ' ' : c;
  }
  return out;
}

std::string valid_values(const SchemaField& f) {
  if (f.choices.empty()) return f.type;
  std::string out = "one of";
  for (std::size_t i = 0; i < f.choices.size(); ++i) out += (i == 0 ? " `" : ", `") + f.choices[i] + "`";
  return f.type.empty() ? out : out + "; " + f.type;
}

std::string render_section(const SchemaSection& s) {
  std::string out = "### `" + s.name + "`: " + s.title + "\n\n";
  if (!s.doc.empty()) out += s.doc + "\n\n";
  out += "| field | type / valid values | default | meaning |\n| --- | --- | --- | --- |\n";
  for (const SchemaField& f : s.fields) {
    out += "| `" + f.name + "` | " + cell(valid_values(f)) + " | " + cell(f.default_value) + " | " + cell(f.meaning) +
           " |\n";
  }
  return out;
}

}  // namespace

std::string render_schema_markdown(const ConfigSchema& schema) {
  std::string out = std::string(kGeneratedBegin) + "\n";
  for (const SchemaSection& s : schema.sections()) out += "\n" + render_section(s);
  return out + "\n" + std::string(kGeneratedEnd);
}

std::string generated_block(const std::string& document) {
  return marked_block(document, {kGeneratedBegin, kGeneratedEnd});
}

std::string replace_generated_block(const std::string& document, const std::string& block) {
  return replace_marked_block(document, {kGeneratedBegin, kGeneratedEnd}, block);
}

}  // namespace simctl
