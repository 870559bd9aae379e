#include "sim/report/json_text.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>

namespace simctl {

void append_json_string(std::string& out, std::string_view text) {
  out += '"';
  for (const char c : text) {
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20) {
          char escaped[8];
          std::snprintf(escaped, sizeof escaped, "\\u%04x", static_cast<unsigned>(c));
          out += escaped;
        } else {
          out += c;
        }
    }
  }
  out += '"';
}

void append_json_number(std::string& out, double value) {
  if (!std::isfinite(value)) {
    out += "null";
    return;
  }
  char buffer[32];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void append_json_integer(std::string& out, long long value) {
  char buffer[24];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  out.append(buffer, result.ptr);
}

void append_microseconds(std::string& out, TimePs t) {
  constexpr TimePs kPsPerUs = 1'000'000;
  if (t < 0) {
    out += '-';
    t = -t;
  }
  append_json_integer(out, t / kPsPerUs);
  TimePs fraction = t % kPsPerUs;
  if (fraction == 0) return;
  char digits[7] = {'0', '0', '0', '0', '0', '0', '\0'};
  for (int i = 5; i >= 0; --i, fraction /= 10) digits[i] = static_cast<char>('0' + fraction % 10);
  int length = 6;
  while (digits[length - 1] == '0') --length;
  out += '.';
  out.append(digits, length);
}

}  // namespace simctl
