#pragma once
// A generated block of a hand-written document: the text from a begin
// marker line to an end marker line, markers included, which a generator
// rewrites and a test compares (docs/config.md, docs/accuracy.md, README.md).
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>

namespace simctl {

struct BlockMarkers {
  std::string_view begin;
  std::string_view end;
};

namespace detail {
// [start of the begin marker, end of the end marker)
inline std::pair<std::size_t, std::size_t> marked_span(const std::string& document, BlockMarkers markers) {
  const std::size_t begin = document.find(markers.begin);
  const std::size_t end = begin == std::string::npos ? std::string::npos : document.find(markers.end, begin);
  if (begin == std::string::npos || end == std::string::npos) {
    throw std::invalid_argument("no generated block: expected the line '" + std::string(markers.begin) +
                                "' and, after it, '" + std::string(markers.end) + "'");
  }
  return {begin, end + markers.end.size()};
}
}  // namespace detail

// The block (markers included) inside `document`; std::invalid_argument when
// the markers are missing or out of order.
inline std::string marked_block(const std::string& document, BlockMarkers markers) {
  const auto [begin, end] = detail::marked_span(document, markers);
  return document.substr(begin, end - begin);
}

// `document` with its block swapped for `block`.
inline std::string replace_marked_block(const std::string& document, BlockMarkers markers, const std::string& block) {
  const auto [begin, end] = detail::marked_span(document, markers);
  return document.substr(0, begin) + block + document.substr(end);
}

}  // namespace simctl
