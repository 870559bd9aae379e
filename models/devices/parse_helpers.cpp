#include <string>

#include "models/devices/catalogue_parsers.hpp"

namespace simctl {

// A figure without a source cannot be checked, so the catalogue refuses it.
std::string read_source(const ConfigNode& block) {
  ConfigNode node = block.child("source");
  std::string text = node.as_string();
  if (text.find_first_not_of(" \t") == std::string::npos) node.fail("source must name a datasheet or measurement");
  return text;
}

double read_fraction(const ConfigNode& block, std::string_view key) {
  ConfigNode node = block.child(key);
  double value = node.as_number();
  if (!(value > 0.0 && value <= 1.0)) node.fail("must be a fraction in (0, 1], got " + std::to_string(value));
  return value;
}

DType read_dtype_key(const ConfigNode& key_node, const std::string& key) {
  if (auto d = dtype_from_string(key)) return *d;
  key_node.fail("unknown dtype '" + key + "'; valid dtypes are " + dtype_choices());
}

}  // namespace simctl
