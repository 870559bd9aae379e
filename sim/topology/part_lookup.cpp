#include "sim/topology/part_lookup.hpp"

#include <algorithm>
#include <charconv>
#include <stdexcept>

#include "sim/config/config_node.hpp"

namespace simctl {
namespace {

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = up;
    }
  }
  return row[b.size()];
}

EndpointId resolve_rank(const System& system, std::string_view text, std::string_view digits) {
  std::size_t rank = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  const std::size_t count = system.gpus().size();
  const std::string valid =
      count == 0 ? std::string("the system has no GPU")
                 : "the system has " + std::to_string(count) + " GPUs, gpu:0 to gpu:" + std::to_string(count - 1);
  if (ec != std::errc() || end != digits.data() + digits.size()) {
    throw std::invalid_argument("'" + std::string(text) + "' is not a GPU rank; " + valid);
  }
  if (rank >= count) throw std::invalid_argument("GPU rank '" + std::string(text) + "' is out of range; " + valid);
  return system.gpus()[rank];
}

}  // namespace

std::vector<std::string> close_part_names(const System& system, std::string_view text, std::size_t limit) {
  const std::size_t within = std::max<std::size_t>(2, text.size() / 3);
  std::vector<std::pair<std::size_t, EndpointId>> scored;
  for (EndpointId v = 0; v < system.num_parts(); ++v) {
    const std::size_t d = edit_distance(text, system.part(v).name);
    if (d <= within) scored.emplace_back(d, v);
  }
  std::stable_sort(scored.begin(), scored.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  std::vector<std::string> out;
  for (std::size_t i = 0; i < scored.size() && i < limit; ++i) out.push_back(system.part(scored[i].second).name);
  return out;
}

EndpointId resolve_part(const System& system, std::string_view text) {
  if (text.starts_with("gpu:")) return resolve_rank(system, text, text.substr(4));
  if (auto found = system.find(text)) return *found;
  const auto close = close_part_names(system, text, 5);
  std::string hint = close.empty() ? "no part has a similar name" : "did you mean " + join_choices(close) + "?";
  throw std::invalid_argument("no part named '" + std::string(text) + "' in system '" + system.name() + "'; " + hint +
                              " (write " + std::string(kPartReferenceSyntax) + ")");
}

}  // namespace simctl
