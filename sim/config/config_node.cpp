#include "sim/config/config_node.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <fstream>
#include <sstream>

#include "sim/config/input_limits.hpp"
#include "sim/config/nearest_choice.hpp"
#include "sim/config/quantity.hpp"

namespace simctl {
namespace {

std::string child_path(const std::string& parent, std::string_view key) {
  if (parent.empty()) return std::string(key);
  return parent + "." + std::string(key);
}

SourceLocation location_of(const std::string& file, const YAML::Mark& mark) {
  if (mark.is_null()) return SourceLocation{file, 0, 0};
  return SourceLocation{file, mark.line + 1, mark.column + 1};
}

}  // namespace

std::string join_choices(const std::vector<std::string>& options) {
  std::string out;
  for (std::size_t i = 0; i < options.size(); ++i) {
    if (i > 0) out += (i + 1 == options.size()) ? " or " : ", ";
    out += options[i];
  }
  return out;
}

ConfigNode::ConfigNode(YAML::Node node, std::shared_ptr<const std::string> file, std::string path, YAML::Mark mark)
    : node_(std::move(node)), file_(std::move(file)), path_(std::move(path)), mark_(mark) {}

ConfigNode ConfigNode::load_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ConfigError(SourceLocation{path, 0, 0}, "", "cannot open file for reading");
  check_file_size(path, kMaxYamlFileBytes, "YAML");
  std::ostringstream text;
  text << in.rdbuf();
  return load_string(text.str(), path);
}

ConfigNode ConfigNode::load_string(const std::string& text, const std::string& file_label) {
  auto file = std::make_shared<const std::string>(file_label);
  YAML::Node root;
  try {
    root = YAML::Load(text);
  } catch (const YAML::ParserException& e) {
    throw ConfigError(location_of(file_label, e.mark), "", "YAML syntax error: " + e.msg);
  }
  if (!root.IsDefined() || root.IsNull()) {
    throw ConfigError(SourceLocation{file_label, 1, 1}, "", "the file is empty; expected a YAML mapping");
  }
  return ConfigNode(root, file, "", root.Mark());
}

SourceLocation ConfigNode::location() const { return location_of(*file_, mark_); }

void ConfigNode::fail(const std::string& problem) const { throw ConfigError(location(), path_, problem); }

bool ConfigNode::has(std::string_view key) const {
  if (!node_.IsMap()) return false;
  for (const auto& kv : node_) {
    if (kv.first.Scalar() == key) return true;
  }
  return false;
}

void ConfigNode::expect_map() const {
  if (!node_.IsMap()) fail("expected a mapping of 'key: value' fields");
}

void ConfigNode::expect_keys(std::initializer_list<std::string_view> allowed) const {
  expect_keys(std::vector<std::string>(allowed.begin(), allowed.end()));
}

void ConfigNode::expect_keys(const std::vector<std::string>& allowed) const {
  expect_map();
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    if (std::find(allowed.begin(), allowed.end(), key) != allowed.end()) continue;
    throw ConfigError(
        location_of(*file_, kv.first.Mark()), child_path(path_, key),
        "unknown field" + did_you_mean(key, allowed) + "; valid fields here are " + join_choices(allowed));
  }
}

ConfigNode ConfigNode::child(std::string_view key) const {
  auto found = optional_child(key);
  if (!found) {
    expect_map();
    // The field named is the missing one, so even a top-level field (whose
    // parent, the file's root, has no name) is named.
    throw ConfigError(location(), child_path(path_, key), "missing required field '" + std::string(key) + "'");
  }
  return *found;
}

std::optional<ConfigNode> ConfigNode::optional_child(std::string_view key) const {
  if (!node_.IsMap()) return std::nullopt;
  for (const auto& kv : node_) {
    if (kv.first.Scalar() == key) {
      // A null value ("key:" with nothing after it) counts as absent's
      // cousin: present but empty, which readers below reject clearly.
      return ConfigNode(kv.second, file_, child_path(path_, key),
                        kv.second.Mark().is_null() ? kv.first.Mark() : kv.second.Mark());
    }
  }
  return std::nullopt;
}

std::vector<ConfigNode> ConfigNode::elements() const {
  if (!node_.IsSequence()) fail("expected a list ('- item' entries)");
  std::vector<ConfigNode> out;
  std::size_t index = 0;
  for (const auto& item : node_) {
    out.push_back(ConfigNode(item, file_, path_ + "[" + std::to_string(index++) + "]", item.Mark()));
  }
  return out;
}

std::vector<std::pair<std::string, ConfigNode>> ConfigNode::entries() const {
  expect_map();
  std::vector<std::pair<std::string, ConfigNode>> out;
  for (const auto& kv : node_) {
    const std::string key = kv.first.Scalar();
    out.emplace_back(key, ConfigNode(kv.second, file_, child_path(path_, key), kv.second.Mark()));
  }
  return out;
}

std::string ConfigNode::scalar_text(const char* expected) const {
  if (!node_.IsScalar()) fail(std::string("expected ") + expected);
  return node_.Scalar();
}

std::string ConfigNode::as_string() const { return scalar_text("a text value"); }

std::int64_t ConfigNode::as_integer() const {
  const std::string text = scalar_text("an integer");
  std::int64_t value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) fail("expected an integer, got '" + text + "'");
  return value;
}

double ConfigNode::as_number() const {
  const std::string text = scalar_text("a number");
  double value = 0.0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value)) {
    fail("expected a number, got '" + text + "'");
  }
  return value;
}

bool ConfigNode::as_bool() const {
  const std::string text = scalar_text("true or false");
  if (text == "true") return true;
  if (text == "false") return false;
  fail("expected true or false, got '" + text + "'");
}

Bandwidth ConfigNode::as_bandwidth() const {
  const std::string text = scalar_text("a bandwidth such as '400 Gb/s'");
  auto value = parse_bandwidth_bytes_per_s(text);
  if (!value) fail("'" + text + "' is not a bandwidth; write a number and one of " + std::string(kBandwidthUnits));
  if (*value <= 0) fail("bandwidth must be positive, got '" + text + "'");
  if (*value < kMinBandwidthBytesPerS || *value > kMaxBandwidthBytesPerS) {
    fail("bandwidth '" + text + "' is outside the range simctl simulates, 1 KB/s to 1 EB/s (1e3 to 1e18 B/s)");
  }
  return Bandwidth{*value};
}

Bytes ConfigNode::as_size() const {
  const std::string text = scalar_text("a size such as '80 GiB'");
  auto value = parse_size_bytes(text);
  if (!value) fail("'" + text + "' is not a size; write a number and one of " + std::string(kSizeUnits));
  if (*value < 0) fail("size must not be negative, got '" + text + "'");
  if (*value > kMaxSizeBytes)
    fail("size '" + text + "' is too large; sizes are counted in 64-bit bytes, at most 8 EiB");
  return static_cast<Bytes>(std::llround(*value));
}

TimePs ConfigNode::as_time() const {
  const std::string text = scalar_text("a duration such as '2 us'");
  auto value = parse_time_seconds(text);
  if (!value) fail("'" + text + "' is not a duration; write a number and one of " + std::string(kTimeUnits));
  if (*value < 0) fail("duration must not be negative, got '" + text + "'");
  if (*value > kMaxTimeSeconds) {
    fail("duration '" + text + "' is too long; times are counted in 64-bit picoseconds, at most 9.2e6 s (106 days)");
  }
  return static_cast<TimePs>(std::llround(*value * 1e12));
}

FlopRate ConfigNode::as_flop_rate() const {
  const std::string text = scalar_text("a compute rate such as '989 TFLOP/s'");
  auto value = parse_flop_rate(text);
  if (!value) fail("'" + text + "' is not a compute rate; write a number and one of " + std::string(kFlopRateUnits));
  if (*value <= 0) fail("compute rate must be positive, got '" + text + "'");
  if (*value < kMinFlopRate || *value > kMaxFlopRate) {
    fail("compute rate '" + text + "' is outside the range simctl simulates, 1e6 to 1e21 FLOP/s");
  }
  return FlopRate{*value};
}

double ConfigNode::as_power_watts() const {
  const std::string text = scalar_text("a power such as '700 W'");
  auto value = parse_power_watts(text);
  if (!value) fail("'" + text + "' is not a power; write a number and one of " + std::string(kPowerUnits));
  if (*value <= 0) fail("power must be positive, got '" + text + "'");
  if (*value > kMaxPowerWatts) fail("power '" + text + "' is above 1 MW, the most simctl accepts for one part");
  return *value;
}

std::string ConfigNode::as_choice(std::initializer_list<std::string_view> options) const {
  return as_choice(std::vector<std::string>(options.begin(), options.end()));
}

std::string ConfigNode::as_choice(const std::vector<std::string>& options) const {
  const std::string text = as_string();
  if (std::find(options.begin(), options.end(), text) != options.end()) return text;
  fail("'" + text + "' is not valid" + did_you_mean(text, options) + "; choose " + join_choices(options));
}

std::string ConfigNode::string_or(std::string_view key, std::string fallback) const {
  auto c = optional_child(key);
  return c ? c->as_string() : fallback;
}

std::int64_t ConfigNode::integer_or(std::string_view key, std::int64_t fallback) const {
  auto c = optional_child(key);
  return c ? c->as_integer() : fallback;
}

std::int64_t ConfigNode::positive_integer(std::string_view key) const {
  ConfigNode c = child(key);
  std::int64_t v = c.as_integer();
  if (v <= 0) c.fail("must be a positive integer, got " + std::to_string(v));
  return v;
}

double ConfigNode::number_or(std::string_view key, double fallback) const {
  auto c = optional_child(key);
  return c ? c->as_number() : fallback;
}

bool ConfigNode::bool_or(std::string_view key, bool fallback) const {
  auto c = optional_child(key);
  return c ? c->as_bool() : fallback;
}

Bytes ConfigNode::size_or(std::string_view key, Bytes fallback) const {
  auto c = optional_child(key);
  return c ? c->as_size() : fallback;
}

TimePs ConfigNode::time_or(std::string_view key, TimePs fallback) const {
  auto c = optional_child(key);
  return c ? c->as_time() : fallback;
}

}  // namespace simctl
