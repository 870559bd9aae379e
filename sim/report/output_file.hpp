#pragma once
// A file written front to back through a buffer, gzip-compressed when its
// name ends in ".gz". The detailed outputs of a large run (a trace, ops.csv)
// reach gigabytes: they are streamed through one of these, never built whole
// in memory.
#include <cstddef>
#include <cstdio>
#include <filesystem>
#include <string>
#include <string_view>

namespace simctl {

bool names_gzip_file(const std::filesystem::path& path);

class OutputFile {
 public:
  // `what` names the output in errors ("the trace"). Throws
  // std::runtime_error when the file cannot be opened.
  OutputFile(const std::filesystem::path& path, std::string what);
  OutputFile(const OutputFile&) = delete;
  OutputFile& operator=(const OutputFile&) = delete;
  ~OutputFile();  // closes without reporting errors; call close() to see them

  // The buffer callers append to; it is written out once it grows past a
  // few MiB, so text appended here costs no extra copy.
  std::string& buffer() { return buffer_; }
  void write(std::string_view text) {
    buffer_.append(text);
    flush_if_full();
  }
  void flush_if_full() {
    if (buffer_.size() >= kFlushBytes) flush();
  }
  // Writes what is left and closes; throws std::runtime_error on failure
  // (a full disk), naming the file.
  void close();

 private:
  static constexpr std::size_t kFlushBytes = std::size_t{4} << 20;
  void flush();
  [[noreturn]] void fail(const std::string& why) const;

  std::filesystem::path path_;
  std::string what_;
  std::string buffer_;
  std::FILE* plain_ = nullptr;
  void* gzip_ = nullptr;  // gzFile, kept out of this header
};

}  // namespace simctl
