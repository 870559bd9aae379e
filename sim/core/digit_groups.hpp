#pragma once
// "1234567" -> "1,234,567": counts people read (parameters, sweep points)
// and check against hand counts at a glance.
#include <cstdint>
#include <string>

namespace simctl {

inline std::string with_commas(std::uint64_t n) {
  const std::string digits = std::to_string(n);
  std::string out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

}  // namespace simctl
