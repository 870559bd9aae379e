#pragma once
// Reads a positive integer with an upper sanity bound. The bounds keep the
// exact integer arithmetic (parameter counts, hidden^2) inside int64 and the
// generated traces to a size that fits in memory, so absurd inputs give an
// error instead of an overflow or a hang.
#include <cstdint>
#include <string>
#include <string_view>

#include "sim/config/config_node.hpp"

namespace simctl {

inline std::int64_t bounded_positive_integer(const ConfigNode& node, std::string_view key, std::int64_t max) {
  const std::int64_t value = node.positive_integer(key);
  if (value > max) {
    node.child(key).fail("must be at most " + std::to_string(max) + ", got " + std::to_string(value));
  }
  return value;
}

}  // namespace simctl
