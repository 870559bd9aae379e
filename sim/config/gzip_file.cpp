#include "sim/config/gzip_file.hpp"

#include <zlib.h>

namespace simctl {

std::string read_possibly_gzipped(const std::string& path) {
  gzFile in = gzopen(path.c_str(), "rb");
  if (!in) throw FileReadError("cannot read '" + path + "'");
  std::string bytes;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0) bytes.append(buffer, static_cast<std::size_t>(n));
  int code = 0;
  const std::string error = n < 0 ? gzerror(in, &code) : "";
  gzclose(in);
  if (n < 0) throw FileReadError("cannot read '" + path + "': " + error);
  return bytes;
}

}  // namespace simctl
