#pragma once
// A file's text through zlib, which reads gzipped and plain files alike: the
// tests' view of what `--trace FILE.gz`, `--csv-gz` and Kineto imports hold.
#include <zlib.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

namespace simctl::testing {

inline std::string gunzipped(const std::filesystem::path& file) {
  gzFile in = gzopen(file.c_str(), "rb");
  REQUIRE(in != nullptr);
  std::string text;
  char buffer[1 << 16];
  int n = 0;
  while ((n = gzread(in, buffer, sizeof buffer)) > 0) text.append(buffer, static_cast<std::size_t>(n));
  CHECK(n == 0);
  gzclose(in);
  return text;
}

}  // namespace simctl::testing
