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

std::string arrow(const std::string& tier) {
  std::string out = tier;
  if (auto at = out.find("->"); at != std::string::npos) out.replace(at, 2, "\u2192");
  return out;
}

const TierReport* busiest_tier(const StepReport& report) {
  const TierReport* best = nullptr;
  for (const TierReport& t : report.tiers) {
    if (t.busy_links > 0 && (!best || t.max_utilisation > best->max_utilisation)) best = &t;
  }
  return best;
}

bool leaves_the_node(const std::string& tier) {
  return tier.find("nic") != std::string::npos || tier.find("leaf") != std::string::npos ||
         tier.find("spine") != std::string::npos || tier.find("core") != std::string::npos ||
         tier.find("network_switch") != std::string::npos;
}

std::string links_clause(const StepReport& report) {
  const TierReport* tier = busiest_tier(report);
  if (tier == nullptr) return "no link carried traffic";
  std::string out = arrow(tier->name) + fmt(" links are up to %.0f%% busy (mean %.0f%%)", 100.0 * tier->max_utilisation,
                                            100.0 * tier->mean_utilisation);
  if (tier->oversubscription > 1.05) out += fmt(" under %.3g:1 oversubscription", tier->oversubscription);
  return out;
}

std::string dimension_words(CommDimension d) {
  switch (d) {
    case CommDimension::data: return "data-parallel";
    case CommDimension::tensor: return "tensor-parallel";
    case CommDimension::pipeline: return "pipeline";
    case CommDimension::expert: return "expert-parallel";
    case CommDimension::other: return "other";
  }
  return "other";
}

std::string communication_verdict(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  CommDimension top = CommDimension::data;
  for (CommDimension d : kAllDimensions) {
    if (b[comm_category(d)] > b[comm_category(top)]) top = d;
  }
  const TierReport* tier = busiest_tier(report);
  const bool inter_node = tier != nullptr && leaves_the_node(tier->name);
  return fmt("communication-bound: %.0f%% of the step is exposed communication, %.0f%% of it ",
             percent(b.exposed_communication(), b.step), percent(b[comm_category(top)], b.exposed_communication())) +
         (inter_node ? "inter-node " : "") + dimension_words(top) + "; " + links_clause(report);
}

std::string compute_verdict(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  const double memory_share = percent(b[Category::compute_memory_bound], b.compute());
  const char* kind = memory_share > 50.0 ? "memory-bound" : "compute-bound";
  return std::string(kind) +
         fmt(": %.0f%% of the step is GPU compute, %.0f%% of it in memory-bound kernels", percent(b.compute(), b.step),
             memory_share) +
         fmt(", %.0f%% in the optimizer; ", percent(b[Category::optimizer], b.compute())) + links_clause(report);
}

}  // namespace

std::string describe_bottleneck(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  const TimePs bubble = b[Category::pipeline_bubble], waiting = b[Category::waiting];
  const TimePs largest = std::max({b.compute(), b.exposed_communication(), b.exposed_copy(), bubble, waiting});
  if (largest == 0) return "nothing ran";
  if (largest == b.compute()) return compute_verdict(report);
  if (largest == b.exposed_communication()) return communication_verdict(report);
  if (largest == b.exposed_copy()) {
    return fmt("input-bound: %.0f%% of the step is data loading and host/device copies not hidden by compute; ",
               percent(b.exposed_copy(), b.step)) +
           links_clause(report);
  }
  if (largest == bubble) {
    return fmt("pipeline-bound: %.0f%% of the step is pipeline bubble (stages waiting for activations or gradients "
               "during fill, drain and stage imbalance); ",
               percent(bubble, b.step)) +
           links_clause(report);
  }
  return fmt("idle-bound: GPUs wait %.0f%% of the step on other ranks (stragglers or load imbalance)",
             percent(waiting, b.step));
}

}  // namespace simctl
