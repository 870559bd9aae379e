#pragma once
// One error type for every malformed or inconsistent input. Its message is a
// single line a user can act on: where (file:line:col), which field, what is
// wrong, and what would be valid.
#include <stdexcept>
#include <string>

namespace simctl {

struct SourceLocation {
  std::string file;
  int line = 0;    // 1-based; 0 when unknown
  int column = 0;  // 1-based; 0 when unknown
  std::string to_string() const;
};

class ConfigError : public std::runtime_error {
 public:
  ConfigError(SourceLocation where, std::string field, std::string problem);
  const SourceLocation& where() const { return where_; }
  const std::string& field() const { return field_; }
  const std::string& problem() const { return problem_; }

 private:
  SourceLocation where_;
  std::string field_;
  std::string problem_;
};

}  // namespace simctl
