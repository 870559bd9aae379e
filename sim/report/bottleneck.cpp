#include "sim/report/bottleneck.hpp"

#include <algorithm>
#include <cstdio>

namespace simctl {
namespace {

double percent(TimePs part, TimePs whole) {
  return whole > 0 ? 100.0 * ps_to_seconds(part) / ps_to_seconds(whole) : 0.0;
}

std::string fmt(const char* format, double a, double b = 0.0) {
  char buffer[256];
  std::snprintf(buffer, sizeof buffer, format, a, b);
  return buffer;
}

std::string busiest_link_clause(const StepReport& report) {
  if (report.busiest_links.empty()) return "no link carried traffic";
  const LinkReport& top = report.busiest_links.front();
  return "busiest link " + top.name + fmt(" is %.0f%% busy", 100.0 * top.utilisation);
}

std::string compute_verdict(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  const double memory_share = percent(b.compute_memory_bound, b.compute);
  const char* kind = memory_share > 50.0 ? "memory-bound" : "compute-bound";
  return std::string(kind) +
         fmt(": %.0f%% of the step is GPU compute, %.0f%% of it in memory-bound kernels; ", percent(b.compute, b.step),
             memory_share) +
         busiest_link_clause(report);
}

}  // namespace

std::string describe_bottleneck(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  const TimePs largest = std::max({b.compute, b.exposed_communication, b.exposed_copy, b.idle});
  if (largest == 0) return "nothing ran";
  if (largest == b.compute) return compute_verdict(report);
  if (largest == b.exposed_communication) {
    return fmt("communication-bound: %.0f%% of the step is exposed communication; ",
               percent(b.exposed_communication, b.step)) +
           busiest_link_clause(report);
  }
  if (largest == b.exposed_copy) {
    return fmt("copy-bound: %.0f%% of the step is host/device copies not hidden by compute; ",
               percent(b.exposed_copy, b.step)) +
           busiest_link_clause(report);
  }
  return fmt("idle-bound: GPUs wait %.0f%% of the step (dependencies, stragglers or load imbalance)",
             percent(b.idle, b.step));
}

}  // namespace simctl
