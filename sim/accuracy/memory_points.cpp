#include "sim/accuracy/memory_points.hpp"

#include <algorithm>
#include <cstdio>

#include "sim/config/config_error.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/config/data_root.hpp"
#include "sim/core/units.hpp"
#include "workloads/memory_estimate.hpp"

namespace simctl {

namespace {

MemoryPoint read_point(const ConfigNode& p) {
  expect_section(p, "memory_points_file.points[]");
  MemoryPoint point;
  point.id = p.string("id");
  point.gpu = p.string("gpu");
  point.measured_gib = p.number("measured_gib");
  if (point.measured_gib <= 0.0) p.child("measured_gib").fail("must be > 0 (GiB)");
  point.in_sample = p.child("sample").as_choice({"in", "out"}) == "in";
  point.tolerance = p.number("tolerance");
  if (point.tolerance <= 0.0) p.child("tolerance").fail("must be a relative error > 0 (0.10 = 10 %)");
  point.source = p.string("source");
  point.setup = p.string("setup");
  point.workload = parse_workload(p.child("workload"));
  return point;
}

UnmodelledPeak read_unmodelled(const ConfigNode& p) {
  expect_section(p, "memory_points_file.not_modelled[]");
  return {p.string("id"), p.string("measured"), p.string("source"), p.string("reason")};
}

void check_fitted_on(const ConfigNode& allocator, const MemoryPoints& out) {
  const ConfigNode list = allocator.child("fitted_on");
  for (const std::string& id : out.fitted_on) {
    const auto it = std::find_if(out.points.begin(), out.points.end(), [&](const auto& p) { return p.id == id; });
    if (it == out.points.end()) list.fail("names " + id + ", which is not a point of this file");
    if (!it->in_sample) list.fail("names " + id + ", a held-out point (sample: out); fit on sample: in points only");
  }
  for (const MemoryPoint& p : out.points) {
    if (p.in_sample && std::find(out.fitted_on.begin(), out.fitted_on.end(), p.id) == out.fitted_on.end()) {
      list.fail("must name every sample: in point; " + p.id + " is missing");
    }
  }
}

}  // namespace

MemoryPoints load_memory_points(const std::string& path) {
  const ConfigNode file = ConfigNode::load_file(path);
  expect_section(file, "memory_points_file");
  MemoryPoints out;
  const ConfigNode allocator = file.child("allocator");
  expect_section(allocator, "memory_points_file.allocator");
  out.reserved_over_allocated = allocator.number("reserved_over_allocated");
  if (out.reserved_over_allocated < 0.0) allocator.child("reserved_over_allocated").fail("must be >= 0");
  for (const ConfigNode& id : allocator.child("fitted_on").elements()) out.fitted_on.push_back(id.as_string());
  for (const ConfigNode& p : file.child("points").elements()) out.points.push_back(read_point(p));
  if (const auto rest = file.optional_child("not_modelled")) {
    for (const ConfigNode& p : rest->elements()) out.not_modelled.push_back(read_unmodelled(p));
  }
  check_fitted_on(allocator, out);
  return out;
}

std::string memory_points_path() { return data_root() + "/workloads/measured/memory_points.yaml"; }

MemoryPointEstimate estimate_point(const MemoryPoint& point, double reserved_over_allocated) {
  const auto rows = estimate_memory(point.workload);
  const auto peak = std::max_element(rows.begin(), rows.end(),
                                     [](const auto& a, const auto& b) { return a.total_bytes() < b.total_bytes(); });
  MemoryPointEstimate e;
  e.allocated_gib = peak->total_bytes() / static_cast<double>(kGiB);
  e.reserved_gib = e.allocated_gib * (1.0 + reserved_over_allocated);
  e.error = e.reserved_gib / point.measured_gib - 1.0;
  auto items = peak->items;
  std::stable_sort(items.begin(), items.end(), [](const auto& a, const auto& b) { return a.bytes > b.bytes; });
  for (std::size_t i = 0; i < std::min<std::size_t>(2, items.size()); ++i) {
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s%s %.1f", i ? ", " : "", items[i].name.c_str(),
                  items[i].bytes / static_cast<double>(kGiB));
    e.largest_items += buf;
  }
  return e;
}

double fit_allocator_margin(const MemoryPoints& points) {
  double sum = 0.0;
  int n = 0;
  for (const MemoryPoint& p : points.points) {
    if (!p.in_sample) continue;
    sum += p.measured_gib / estimate_point(p, 0.0).allocated_gib - 1.0;
    ++n;
  }
  return n == 0 ? 0.0 : sum / n;
}

}  // namespace simctl
