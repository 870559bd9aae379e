#pragma once
// A read-only view of one YAML node that remembers where it came from (file,
// line, column, and its dotted field path) so that every validation failure
// can say exactly where it happened. All config and catalogue readers go
// through this class; none touches yaml-cpp errors directly.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"
#include "sim/core/units.hpp"

namespace simctl {

class ConfigNode {
 public:
  // Parses a YAML file; syntax errors and unreadable files become ConfigError.
  static ConfigNode load_file(const std::string& path);
  // Parses YAML text; `file_label` names it in error messages.
  static ConfigNode load_string(const std::string& text, const std::string& file_label);

  const std::string& file() const { return *file_; }
  const std::string& path() const { return path_; }
  SourceLocation location() const;
  const YAML::Node& yaml() const { return node_; }

  bool is_map() const { return node_.IsMap(); }
  bool is_sequence() const { return node_.IsSequence(); }
  bool is_scalar() const { return node_.IsScalar(); }
  bool has(std::string_view key) const;

  // Rejects keys outside `allowed`, naming the valid ones. Also requires a map.
  void expect_keys(std::initializer_list<std::string_view> allowed) const;
  void expect_keys(const std::vector<std::string>& allowed) const;
  void expect_map() const;

  ConfigNode child(std::string_view key) const;  // required
  std::optional<ConfigNode> optional_child(std::string_view key) const;
  std::vector<ConfigNode> elements() const;                         // requires a sequence
  std::vector<std::pair<std::string, ConfigNode>> entries() const;  // requires a map

  // Scalar readers for this node itself.
  std::string as_string() const;
  std::int64_t as_integer() const;
  double as_number() const;
  bool as_bool() const;
  Bandwidth as_bandwidth() const;  // "400 Gb/s"; must be > 0
  Bytes as_size() const;           // "80 GiB"; must be >= 0
  TimePs as_time() const;          // "2 us"; must be >= 0
  FlopRate as_flop_rate() const;   // "989 TFLOP/s"; must be > 0
  double as_power_watts() const;   // "500 W"; must be > 0
  std::string as_choice(std::initializer_list<std::string_view> options) const;
  std::string as_choice(const std::vector<std::string>& options) const;

  // Keyed shorthands: required, or with a default when the key is absent.
  std::string string(std::string_view key) const { return child(key).as_string(); }
  std::string string_or(std::string_view key, std::string fallback) const;
  std::int64_t integer(std::string_view key) const { return child(key).as_integer(); }
  std::int64_t integer_or(std::string_view key, std::int64_t fallback) const;
  std::int64_t positive_integer(std::string_view key) const;
  double number(std::string_view key) const { return child(key).as_number(); }
  double number_or(std::string_view key, double fallback) const;
  bool bool_or(std::string_view key, bool fallback) const;
  Bandwidth bandwidth(std::string_view key) const { return child(key).as_bandwidth(); }
  Bytes size(std::string_view key) const { return child(key).as_size(); }
  Bytes size_or(std::string_view key, Bytes fallback) const;
  TimePs time(std::string_view key) const { return child(key).as_time(); }
  TimePs time_or(std::string_view key, TimePs fallback) const;
  FlopRate flop_rate(std::string_view key) const { return child(key).as_flop_rate(); }
  std::string choice(std::string_view key, std::initializer_list<std::string_view> options) const {
    return child(key).as_choice(options);
  }

  // Raises a ConfigError located at this node.
  [[noreturn]] void fail(const std::string& problem) const;

 private:
  ConfigNode(YAML::Node node, std::shared_ptr<const std::string> file, std::string path, YAML::Mark mark);
  std::string scalar_text(const char* expected) const;

  YAML::Node node_;
  std::shared_ptr<const std::string> file_;
  std::string path_;
  YAML::Mark mark_;  // of this node, or of its parent when it is missing
};

// "a, b or c": used in messages that list valid choices.
std::string join_choices(const std::vector<std::string>& options);

}  // namespace simctl
