#include "sim/config/input_limits.hpp"

#include <filesystem>

#include "sim/config/config_error.hpp"
#include "sim/config/quantity.hpp"

namespace simctl {

void check_file_size(const std::string& path, std::uintmax_t limit_bytes, const std::string& what) {
  std::error_code ec;
  const std::uintmax_t bytes = std::filesystem::file_size(path, ec);
  if (ec || bytes <= limit_bytes) return;  // unreadable files are reported by the reader
  throw ConfigError(SourceLocation{path, 0, 0}, "",
                    "the " + what + " file is " + format_bytes(static_cast<double>(bytes)) + ", more than the " +
                        format_bytes(static_cast<double>(limit_bytes)) + " simctl reads");
}

}  // namespace simctl
