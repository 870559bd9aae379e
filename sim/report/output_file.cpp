#include "sim/report/output_file.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>

namespace simctl {
namespace {

// Level 1: a trace's JSON still shrinks about tenfold, at several times the
// speed of zlib's default level, so compressing costs less than the disk
// writes it saves.
constexpr const char* kGzipMode = "wb1";

}  // namespace

bool names_gzip_file(const std::filesystem::path& path) { return path.extension() == ".gz"; }

OutputFile::OutputFile(const std::filesystem::path& path, std::string what) : path_(path), what_(std::move(what)) {
  if (names_gzip_file(path)) {
    gzip_ = gzopen(path.c_str(), kGzipMode);
  } else {
    plain_ = std::fopen(path.c_str(), "wb");
  }
  if (!plain_ && !gzip_) fail(std::strerror(errno));
  buffer_.reserve(kFlushBytes + (kFlushBytes >> 4));
}

OutputFile::~OutputFile() {
  if (plain_) std::fclose(plain_);
  if (gzip_) gzclose(static_cast<gzFile>(gzip_));
}

void OutputFile::flush() {
  if (buffer_.empty()) return;
  if (plain_) {
    if (std::fwrite(buffer_.data(), 1, buffer_.size(), plain_) != buffer_.size()) fail(std::strerror(errno));
  } else {
    const auto file = static_cast<gzFile>(gzip_);
    if (gzwrite(file, buffer_.data(), static_cast<unsigned>(buffer_.size())) != static_cast<int>(buffer_.size())) {
      int code = 0;
      fail(gzerror(file, &code));
    }
  }
  buffer_.clear();
}

void OutputFile::close() {
  flush();
  if (plain_) {
    const int status = std::fclose(plain_);
    plain_ = nullptr;
    if (status != 0) fail(std::strerror(errno));
  }
  if (gzip_) {
    const int status = gzclose(static_cast<gzFile>(gzip_));
    gzip_ = nullptr;
    if (status != Z_OK) fail("gzip stream could not be closed (code " + std::to_string(status) + ")");
  }
}

void OutputFile::fail(const std::string& why) const {
  throw std::runtime_error("cannot write " + what_ + " to '" + path_.string() + "': " + why);
}

}  // namespace simctl
