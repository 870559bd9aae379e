#include "sim/config/schema_markdown.hpp"

#include <stdexcept>
#include <utility>

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

// [begin of the begin marker, end of the end marker)
std::pair<std::size_t, std::size_t> block_span(const std::string& document) {
  const std::size_t begin = document.find(kGeneratedBegin);
  const std::size_t end = document.find(kGeneratedEnd);
  if (begin == std::string::npos || end == std::string::npos || end < begin) {
    throw std::invalid_argument("no generated block: expected the line '" + std::string(kGeneratedBegin) +
                                "' and, after it, '" + std::string(kGeneratedEnd) + "'");
  }
  return {begin, end + kGeneratedEnd.size()};
}

}  // namespace

std::string render_schema_markdown(const ConfigSchema& schema) {
  std::string out = std::string(kGeneratedBegin) + "\n";
  for (const SchemaSection& s : schema.sections()) out += "\n" + render_section(s);
  return out + "\n" + std::string(kGeneratedEnd);
}

std::string generated_block(const std::string& document) {
  const auto [begin, end] = block_span(document);
  return document.substr(begin, end - begin);
}

std::string replace_generated_block(const std::string& document, const std::string& block) {
  const auto [begin, end] = block_span(document);
  return document.substr(0, begin) + block + document.substr(end);
}

}  // namespace simctl
