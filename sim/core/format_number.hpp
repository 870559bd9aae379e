#pragma once
// One number through a printf pattern ("%.1f %%"), as report text wants it.
#include <cstdio>
#include <string>

namespace simctl {

inline std::string format_number(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

}  // namespace simctl
