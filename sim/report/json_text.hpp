#pragma once
// JSON scalars appended to a text buffer, for outputs too large to build as
// an nlohmann::json tree first (a trace of millions of events). Numbers are
// written exactly and the same way every run.
#include <string>
#include <string_view>

#include "sim/core/units.hpp"

namespace simctl {

void append_json_string(std::string& out, std::string_view text);  // quoted and escaped
void append_json_number(std::string& out, double value);           // shortest round-trip form; null if not finite
void append_json_integer(std::string& out, long long value);
void append_microseconds(std::string& out, TimePs t);  // exact: picoseconds as µs with up to 6 decimals

}  // namespace simctl
