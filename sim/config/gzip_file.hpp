#pragma once
// A whole input file, plain or gzipped: zlib reads a plain file as it is, so
// one reader serves trace.json and trace.json.gz, job.0.et and job.0.et.gz.
#include <stdexcept>
#include <string>

namespace simctl {

struct FileReadError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// FileReadError("cannot read 'PATH'...") when the file cannot be opened or
// its gzip stream is broken; callers wrap it in their own error kind.
std::string read_possibly_gzipped(const std::string& path);

}  // namespace simctl
