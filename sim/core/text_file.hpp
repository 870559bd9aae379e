#pragma once
// Whole-file text reads and writes for the developer tools that rewrite a
// generated block in place (simctl-config-reference, simctl-accuracy-report).
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace simctl {

inline std::string read_text_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

inline void write_text_file(const std::string& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
  if (!out) throw std::runtime_error("cannot write " + path);
}

}  // namespace simctl
