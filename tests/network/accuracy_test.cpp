// Measured vs simulated for every reference point a shipped config can
// express (models/network/measured/accuracy_points.yaml): each within 10%,
// the median under 5%. The table is printed so docs/network.md can quote it.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <set>
#include <string>

#include "models/devices/device_catalogue.hpp"
#include "models/network/nccl_test.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/system_config.hpp"
#include "tests/network/shipped_systems.hpp"

using namespace simctl;
using simctl::test::system_named;

namespace {

struct Row {
  std::string id;
  double measured_gbps = 0.0;
  double simulated_gbps = 0.0;
  std::string how;
  bool known_miss = false;
  bool fitted = false;
  int nodes = 1;  // nodes the collective spans
  int per_node = 0;
  std::string op;
  std::string config;
  double error() const { return (simulated_gbps - measured_gbps) / measured_gbps; }
};

Row collective_row(const ConfigNode& point, const CollectiveTuning& tuning) {
  CollectivePoint p;
  p.op = *collective_op_from_string(point.string("op"));
  p.gpus = static_cast<int>(point.positive_integer("gpus"));
  p.bytes = point.number("bytes");
  if (point.has("per_node")) p.per_node = static_cast<int>(point.positive_integer("per_node"));
  if (point.has("ctas")) p.ctas = static_cast<int>(point.positive_integer("ctas"));
  if (point.has("sharp")) p.sharp = point.child("sharp").as_bool();
  p.algorithm = *collective_algorithm_from_string(point.string("algorithm"));
  const System& system = system_named(point.string("config"));
  const CollectiveResult r = simulate_collective(system, tuning, p);
  std::set<int> nodes;
  for (EndpointId gpu : collective_members(system, p)) nodes.insert(system.part(gpu).node);
  const int count = static_cast<int>(nodes.size());
  return {point.string("id"),
          point.bandwidth("busbw").gb_per_s(),
          r.busbw_bytes_per_s / 1e9,
          std::string(to_string(r.choice.algorithm)) + "/" + std::string(to_string(r.choice.protocol)),
          point.has("known_miss"),
          point.has("fitted"),
          count,
          p.gpus / count,
          std::string(to_string(p.op)),
          point.string("config")};
}

Row copy_row(const ConfigNode& point) {
  const System& system = system_named(point.string("config"));
  const double bytes = static_cast<double>(kGiB);
  const EndpointId from = *system.find(point.string("from")), to = *system.find(point.string("to"));
  const TimePs t = simulate_copy(system, from, to, bytes);
  // A copy between nodes goes in the across-nodes table, one GPU per node.
  const bool across = system.part(from).node != system.part(to).node;
  return {point.string("id"),
          point.bandwidth("bandwidth").gb_per_s(),
          bytes / ps_to_seconds(t) / 1e9,
          "copy",
          false,
          point.has("fitted"),
          across ? 2 : 1,
          across ? 1 : 0,
          across ? "copy" : "",
          point.string("config")};
}

std::vector<Row> all_rows() {
  const CollectiveTuning tuning = CollectiveTuning::load();
  const ConfigNode points = ConfigNode::load_file(data_root() + "/models/network/measured/accuracy_points.yaml");
  std::vector<Row> rows;
  for (const ConfigNode& p : points.child("collectives").elements()) rows.push_back(collective_row(p, tuning));
  for (const ConfigNode& p : points.child("copies").elements()) rows.push_back(copy_row(p));
  return rows;
}

}  // namespace

// One printed line, kept to compare with docs/network.md.
template <class... Args>
std::string line(const char* format, Args... args) {
  char buffer[512];
  std::snprintf(buffer, sizeof buffer, format, args...);
  return buffer;
}

TEST_CASE("every expressible reference point is reproduced within 10%, median under 5%", "[network][accuracy]") {
  const std::vector<Row> rows = all_rows();
  std::vector<double> errors, held_out;
  std::vector<std::string> printed;  // every table row and summary line docs/network.md quotes
  std::printf(
      "| point | measured GB/s | simulated GB/s | error | simulated as | sample |\n|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    errors.push_back(std::abs(row.error()));
    if (!row.fitted) held_out.push_back(std::abs(row.error()));
    if (row.nodes > 1) continue;  // in the across-nodes table below
    printed.push_back(line("| %s | %.2f | %.2f | %+.1f%% | %s%s | %s |", row.id.c_str(), row.measured_gbps,
                           row.simulated_gbps, 100 * row.error(), row.how.c_str(),
                           row.known_miss ? " (known miss)" : "", row.fitted ? "in" : "out"));
    std::printf("%s\n", printed.back().c_str());
  }
  auto median = [](std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  };
  printed.push_back(line("median |error| %.2f%% over %zu points; out of sample %.2f%% over %zu", 100 * median(errors),
                         errors.size(), 100 * median(held_out), held_out.size()));
  std::printf("%s\n", printed.back().c_str());
  // docs/network.md's "Across nodes" table and the summary lines under it.
  std::printf(
      "\n| nodes | GPUs per node | op | point | measured GB/s | simulated GB/s | error | simulated as | sample "
      "|\n|---|---|---|---|---|---|---|---|---|\n");
  for (const Row& row : rows) {
    if (row.nodes < 2) continue;
    printed.push_back(line("| %d | %d | %s | %s | %.2f | %.2f | %+.1f%% | %s%s | %s |", row.nodes, row.per_node,
                           row.op.c_str(), row.id.c_str(), row.measured_gbps, row.simulated_gbps, 100 * row.error(),
                           row.how.c_str(), row.known_miss ? " (known miss)" : "", row.fitted ? "in" : "out"));
    std::printf("%s\n", printed.back().c_str());
  }
  auto summary = [&](const char* what, auto keep) {
    std::vector<double> e;
    for (const Row& row : rows)
      if (keep(row)) e.push_back(std::abs(row.error()));
    if (e.empty()) return;
    const auto within = std::count_if(e.begin(), e.end(), [](double x) { return x < 0.10; });
    printed.push_back(line("%s: median |error| %.1f%%, max %.1f%%, over %zu points, %td within 10%%", what,
                           100 * median(e), 100 * *std::max_element(e.begin(), e.end()), e.size(), within));
    std::printf("%s\n", printed.back().c_str());
  };
  summary("across nodes, out of sample", [](const Row& r) { return r.nodes > 1 && !r.fitted; });
  summary("across nodes, in sample", [](const Row& r) { return r.nodes > 1 && r.fitted; });
  // Sites T's and U's B200 plateaus are many and alike; the other sites' figure on its own:
  const auto b200 = [](const Row& r) { return r.config.rfind("dgx_b200", 0) == 0; };
  summary("across nodes, out of sample, H100 and A100 sites",
          [&](const Row& r) { return r.nodes > 1 && !r.fitted && !b200(r); });
  summary("across nodes, out of sample, B200 (sites T and U)",
          [&](const Row& r) { return r.nodes > 1 && !r.fitted && b200(r); });
  summary("one node, out of sample", [](const Row& r) { return r.nodes == 1 && !r.fitted && r.op != ""; });
  // The page quotes what the model gives now: a change that moves a point
  // fails here until docs/network.md is updated (and its prose reread).
  std::ifstream page(data_root() + "/docs/network.md");
  const std::string doc((std::istreambuf_iterator<char>(page)), std::istreambuf_iterator<char>());
  for (const std::string& quoted : printed) {
    INFO("docs/network.md lacks: " << quoted);
    CHECK(doc.find(quoted) != std::string::npos);
  }
  for (const Row& row : rows) {
    INFO(row.id << ": measured " << row.measured_gbps << " GB/s, simulated " << row.simulated_gbps << " GB/s ("
                << row.how << ")");
    // A known miss must still miss: once fixed, it moves back under the 10% check.
    CHECK((std::abs(row.error()) < 0.10) != row.known_miss);
  }
  CHECK(median(errors) < 0.05);
  CHECK(median(held_out) < 0.05);
}
