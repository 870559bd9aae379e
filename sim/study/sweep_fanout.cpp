#include "sim/study/sweep_fanout.hpp"

#include <algorithm>

namespace simctl {

std::vector<std::uint64_t> points_of_process(const std::vector<std::uint64_t>& points, const ProcessGroup& group) {
  std::vector<std::uint64_t> mine;
  for (std::size_t i : share_of(points.size(), group)) mine.push_back(points[i]);
  return mine;
}

std::vector<PointRow> gather_rows(ProcessGroup& group, const std::vector<PointRow>& mine) {
  nlohmann::json sent = nlohmann::json::array();
  for (const PointRow& row : mine) sent.push_back(row_to_json(row));
  std::vector<PointRow> rows;
  for (const std::string& text : group.gather(sent.dump())) {
    for (const nlohmann::json& row : nlohmann::json::parse(text)) rows.push_back(row_from_json(row));
  }
  std::sort(rows.begin(), rows.end(), [](const PointRow& a, const PointRow& b) { return a.point < b.point; });
  return rows;
}

}  // namespace simctl
