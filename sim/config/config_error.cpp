#include "sim/config/config_error.hpp"

namespace simctl {

std::string SourceLocation::to_string() const {
  std::string out = file.empty() ? "<input>" : file;
  if (line > 0) {
    out += ":" + std::to_string(line);
    if (column > 0) out += ":" + std::to_string(column);
  }
  return out;
}

static std::string format_message(const SourceLocation& where, const std::string& field, const std::string& problem) {
  std::string msg = where.to_string() + ": error";
  if (!field.empty()) msg += ": field '" + field + "'";
  return msg + ": " + problem;
}

ConfigError::ConfigError(SourceLocation where, std::string field, std::string problem)
    : std::runtime_error(format_message(where, field, problem)),
      where_(std::move(where)),
      field_(std::move(field)),
      problem_(std::move(problem)) {}

}  // namespace simctl
