#include "sim/accuracy/memory_markdown.hpp"

#include <cmath>
#include <vector>

#include "sim/accuracy/accuracy_markdown.hpp"
#include "sim/core/format_number.hpp"

namespace simctl {

namespace {

std::string gib(double value) { return format_number("%.1f GiB", value); }

std::string not_modelled_table(const MemoryPoints& points) {
  std::string out = "### Published peaks not modelled yet\n\n";
  out += "| point | measured | why not yet | source |\n| --- | --- | --- | --- |\n";
  for (const UnmodelledPeak& p : points.not_modelled)
    out += "| " + p.id + " | " + p.measured + " | " + p.reason + " | " + p.source + " |\n";
  return out;
}

}  // namespace

std::string render_memory_block(const MemoryPoints& points) {
  std::string out = std::string(kMemoryAccuracyMarkers.begin) + "\n\n";
  out +=
      "| point | GPU | measured (reserved) | estimated allocated | estimated reserved | error | sample | largest items "
      "(GiB) |\n";
  out += "| --- | --- | ---: | ---: | ---: | ---: | --- | --- |\n";
  std::vector<double> in, held_out;
  for (const MemoryPoint& p : points.points) {
    const MemoryPointEstimate e = estimate_point(p, points.reserved_over_allocated);
    out += "| " + p.id + " | " + p.gpu + " | " + gib(p.measured_gib) + " | " + gib(e.allocated_gib) + " | " +
           gib(e.reserved_gib) + " | " + format_number("%+.1f %%", 100.0 * e.error) + " | " +
           (p.in_sample ? "in" : "out") + " | " + e.largest_items + " |\n";
    (p.in_sample ? in : held_out).push_back(std::abs(e.error));
  }
  out += "\nPeak memory: " + error_summary("out of sample", held_out) + "; " + error_summary("in sample", in) + ".\n";
  out += "\nReserved = allocated × (1 + " + format_number("%.3f", points.reserved_over_allocated) +
         "), the caching allocator's margin fitted on";
  for (std::size_t i = 0; i < points.fitted_on.size(); ++i) out += (i ? ", " : " ") + points.fitted_on[i];
  out += ".\n";
  if (!points.not_modelled.empty()) out += "\n" + not_modelled_table(points);
  return out + "\n" + std::string(kMemoryAccuracyMarkers.end);
}

}  // namespace simctl
