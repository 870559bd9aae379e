#include "sim/report/output_selection.hpp"

#include <charconv>
#include <cmath>

#include "sim/config/quantity.hpp"

namespace simctl {
namespace {

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && text.front() == ' ') text.remove_prefix(1);
  while (!text.empty() && text.back() == ' ') text.remove_suffix(1);
  return text;
}

std::uint32_t rank_number(std::string_view text, std::string_view item) {
  std::uint32_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) {
    throw SelectionError("'" + std::string(item) + "' is not a rank or a range of ranks; write ranks as 0-7,64");
  }
  return value;
}

void check_in_range(std::uint32_t rank, std::uint32_t rank_count) {
  if (rank >= rank_count) {
    throw SelectionError("rank " + std::to_string(rank) + " is not in the run, which has " +
                         std::to_string(rank_count) + " ranks (0-" + std::to_string(rank_count - 1) + ")");
  }
}

// A bare number takes the unit written after the other end ("0..250 ms").
TimePs window_end(std::string_view text, std::string_view unit_of_other, std::string_view window) {
  text = trimmed(text);
  std::optional<double> seconds = parse_time_seconds(text);
  if (!seconds && !unit_of_other.empty()) seconds = parse_time_seconds(std::string(text) + std::string(unit_of_other));
  if (!seconds || !std::isfinite(*seconds) || *seconds < 0) {
    throw SelectionError("'" + std::string(window) + "' is not a window of simulated time; write T0..T1 with units, " +
                         "for example 1.2s..1.4s or 0..250 ms");
  }
  // Nearest, not seconds_to_ps's ceiling: "1400ms" is 1.4e12 ps, not one more.
  const double ps = std::round(*seconds * 1e12);
  return ps < static_cast<double>(kTimeNever) ? static_cast<TimePs>(ps) : kTimeNever;
}

std::string_view unit_of(std::string_view text) {
  text = trimmed(text);
  const auto first_letter = text.find_first_not_of("0123456789.+-eE ");
  return first_letter == std::string_view::npos ? std::string_view() : text.substr(first_letter);
}

}  // namespace

void OutputSelection::keep_ranks(std::string_view list, std::uint32_t rank_count) {
  std::vector<bool> ranks(rank_count, false);
  std::string_view rest = list;
  while (true) {
    const auto comma = rest.find(',');
    const std::string_view item = trimmed(rest.substr(0, comma));
    const auto dash = item.find('-');
    const std::uint32_t first = rank_number(trimmed(item.substr(0, dash)), item);
    const std::uint32_t last =
        dash == std::string_view::npos ? first : rank_number(trimmed(item.substr(dash + 1)), item);
    if (last < first) throw SelectionError("'" + std::string(item) + "' runs backwards; write the lower rank first");
    check_in_range(last, rank_count);
    for (std::uint32_t r = first; r <= last; ++r) ranks[r] = true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  ranks_ = std::move(ranks);
  rank_list_ = std::string(trimmed(list));
}

void OutputSelection::keep_window(std::string_view window) {
  const auto dots = window.find("..");
  if (dots == std::string_view::npos) {
    throw SelectionError("'" + std::string(window) +
                         "' has no '..'; write the window as T0..T1, for example 1.2s..1.4s");
  }
  const std::string_view first = window.substr(0, dots), second = window.substr(dots + 2);
  const TimePs from = window_end(first, unit_of(second), window);
  const TimePs to = window_end(second, unit_of(first), window);
  if (to <= from)
    throw SelectionError("'" + std::string(window) + "' ends before it starts; write T0..T1 with T0 < T1");
  from_ = from;
  to_ = to;
}

std::vector<std::uint32_t> OutputSelection::kept_ranks(std::uint32_t rank_count) const {
  std::vector<std::uint32_t> kept;
  for (std::uint32_t r = 0; r < rank_count; ++r) {
    if (keeps_rank(r)) kept.push_back(r);
  }
  return kept;
}

std::string OutputSelection::describe() const {
  std::string text;
  if (!ranks_.empty()) text = "ranks " + rank_list_;
  if (from_ != 0 || to_ != kTimeNever)
    text += (text.empty() ? "" : "; ") + format_time(from_) + ".." + format_time(to_);
  return text;
}

}  // namespace simctl
