#include "sim/report/bottleneck.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace simctl {
namespace {

// Other shares of the step at least this large are named too.
constexpr double kAlsoPercent = 10.0;
// A link this many times busier than its tier's mean is named as a hot spot,
// if it is also materially busy: a link busy for less than this fraction of
// the step cannot be what limits it, however idle its neighbours are.
constexpr double kHotSpotFactor = 1.25;
constexpr double kMateriallyBusy = 0.5;
// Ranks whose compute time is within this fraction of each other keep the same pace.
constexpr double kAlikeFraction = 0.01;

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

// The tier whose most used link runs closest to its capacity, then the one
// busy longest: links on the path of a flow throttled elsewhere (PCIe under a
// 25 GbE NIC) are busy as long as that flow, but they do not limit it.
bool used_more(const TierReport& a, const TierReport& b) {
  if (a.max_bandwidth_utilisation != b.max_bandwidth_utilisation)
    return a.max_bandwidth_utilisation > b.max_bandwidth_utilisation;
  return a.max_utilisation > b.max_utilisation;
}

bool leaves_the_node(const std::string& tier) {
  return tier.find("nic") != std::string::npos || tier.find("leaf") != std::string::npos ||
         tier.find("spine") != std::string::npos || tier.find("core") != std::string::npos ||
         tier.find("network_switch") != std::string::npos;
}

// A tier of the fabric itself, outside every node (a NIC's own PCIe feed
// leaves the node too, but is not where a fabric congests).
bool in_the_fabric(const std::string& tier) {
  return tier.find("leaf") != std::string::npos || tier.find("spine") != std::string::npos ||
         tier.find("core") != std::string::npos || tier.find("network_switch") != std::string::npos;
}

enum class TierScope { any, inside_nodes, between_nodes };

bool in_scope(const TierReport& t, TierScope scope) {
  if (scope == TierScope::any) return true;
  return leaves_the_node(t.name) == (scope == TierScope::between_nodes);
}

// Between nodes, the fabric's tiers come before the NICs' feeds; then the
// one used more.
bool ranks_before(const TierReport& a, const TierReport& b, TierScope scope) {
  if (scope == TierScope::between_nodes && in_the_fabric(a.name) != in_the_fabric(b.name)) return in_the_fabric(a.name);
  return used_more(a, b);
}

const TierReport* busiest_tier(const StepReport& report, TierScope scope = TierScope::any) {
  const TierReport* best = nullptr;
  for (const TierReport& t : report.tiers) {
    if (t.busy_links > 0 && in_scope(t, scope) && (!best || ranks_before(t, *best, scope))) best = &t;
  }
  return best;
}

// A link far busier than the rest of its tier (nn.DataParallel's master GPU,
// an ECMP collision) is named, since the tier's figures hide it: as a hot
// spot when it is materially busy, else only as the busiest.
std::string hot_spot_clause(const StepReport& report, const TierReport& tier) {
  if (report.busiest_links.empty() || tier.busy_links < 2) return "";
  const LinkReport& top = report.busiest_links.front();
  if (top.tier != tier.name || top.utilisation < kHotSpotFactor * tier.mean_utilisation) return "";
  const char* what = top.utilisation >= kMateriallyBusy ? " is a hot spot, " : " is the busiest, ";
  return "; " + top.name + what +
         fmt("%.0f%% busy against its tier's mean %.0f%%", 100.0 * top.utilisation, 100.0 * tier.mean_utilisation);
}

// "gpu→nvswitch links are lightly used, up to 3% busy (mean 3%)"; as the
// carrier of exposed traffic, "nic→leaf links, lightly used: up to ...".
std::string tier_words(const StepReport& report, const TierReport& tier, bool carrier = false) {
  const bool busy = tier.max_utilisation >= kMateriallyBusy;
  const char* verb = carrier ? (busy ? " links, up to " : " links, lightly used: up to ")
                             : (busy ? " links are up to " : " links are lightly used, up to ");
  std::string out = arrow(tier.name) + verb +
                    fmt("%.0f%% busy (mean %.0f%%)", 100.0 * tier.max_utilisation, 100.0 * tier.mean_utilisation);
  if (tier.oversubscription > 1.05) out += fmt(" under %.3g:1 oversubscription", tier.oversubscription);
  return out + hot_spot_clause(report, tier);
}

std::string dimension_words(CommDimension d) {
  switch (d) {
    case CommDimension::data: return "data-parallel";
    case CommDimension::tensor: return "tensor-parallel";
    case CommDimension::pipeline: return "pipeline";
    case CommDimension::expert: return "expert-parallel";
    case CommDimension::context: return "context-parallel";
    case CommDimension::other: return "other";
  }
  return "other";
}

CommDimension top_exposed_dimension(const TimeBreakdown& b) {
  CommDimension top = CommDimension::data;
  for (CommDimension d : kAllDimensions) {
    if (b[comm_category(d)] > b[comm_category(top)]) top = d;
  }
  return top;
}

// Where a dimension's collectives ran: between nodes when most of their
// time was in groups that span nodes; unknown when it ran none (pipeline
// sends are not collectives).
TierScope scope_of(const StepReport& report, CommDimension d) {
  TimePs across = 0, within = 0;
  for (const CollectiveReport& c : report.collectives) {
    if (c.usage.kind.dimension != d) continue;
    (c.usage.kind.across_nodes ? across : within) += c.usage.time;
  }
  if (across == 0 && within == 0) return TierScope::any;
  return across > within ? TierScope::between_nodes : TierScope::inside_nodes;
}

// Exposed communication this large is named in the verdict, so the links
// named are those its traffic crossed, not the busiest tier of the machine
// (on a DGX cluster, NVLink is the busiest, while the exposed data-parallel
// traffic waits on the NICs and the fabric).
std::string links_clause(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  if (percent(b.exposed_communication(), b.step) >= kAlsoPercent) {
    const CommDimension top = top_exposed_dimension(b);
    if (const TierReport* carrier = busiest_tier(report, scope_of(report, top))) {
      return "the exposed " + dimension_words(top) + " traffic crosses " + tier_words(report, *carrier, true);
    }
  }
  const TierReport* tier = busiest_tier(report);
  return tier == nullptr ? "no link carried traffic" : tier_words(report, *tier);
}

std::string communication_verdict(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  const CommDimension top = top_exposed_dimension(b);
  const TierScope scope = scope_of(report, top);
  const TierReport* tier = busiest_tier(report);
  const bool inter_node =
      scope == TierScope::between_nodes || (scope == TierScope::any && tier != nullptr && leaves_the_node(tier->name));
  return fmt("communication-bound: %.0f%% of the step is exposed communication, %.0f%% of it ",
             percent(b.exposed_communication(), b.step), percent(b[comm_category(top)], b.exposed_communication())) +
         (inter_node ? "inter-node " : "") + dimension_words(top);
}

// Launch-bound kernels are named when they are at least this share of compute.
constexpr double kLaunchNamedPercent = 0.5;

std::string compute_verdict(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  const double memory_share = percent(b[Category::compute_memory_bound], b.compute());
  const double launch_share = percent(b[Category::compute_launch_bound], b.compute());
  const char* kind = "compute-bound";
  if (memory_share > 50.0) kind = "memory-bound";
  if (launch_share > 50.0) kind = "launch-bound";
  std::string out = std::string(kind) + fmt(": %.0f%% of the step is GPU compute, %.0f%% of it in memory-bound kernels",
                                            percent(b.compute(), b.step), memory_share);
  if (launch_share >= kLaunchNamedPercent) out += fmt(", %.0f%% in launch-bound kernels", launch_share);
  return out + fmt(", %.0f%% in the optimizer", percent(b[Category::optimizer], b.compute()));
}

// " (mostly for rank 0 on node0.gpu0)": the rank the others waited for
// longest, when one rank accounts for most of the waiting.
std::string waited_on_words(const StepReport& report) {
  const auto& waited = report.waited_on;
  if (waited.empty()) return "";
  const auto top = std::max_element(waited.begin(), waited.end());
  TimePs total = 0;
  for (TimePs t : waited) total += t;
  if (total == 0 || 2 * *top < total) return "";
  const auto rank = static_cast<std::size_t>(top - waited.begin());
  const std::string gpu = rank < report.rank_gpu_names.size() ? " on " + report.rank_gpu_names[rank] : "";
  // Ranks as slow as it arrive together and only one is counted last, so
  // say how many share its pace (a slower GPU type, not one straggler).
  int alike = 0;
  if (rank < report.per_rank.size()) {
    const double pace = ps_to_seconds(report.per_rank[rank].compute());
    for (std::size_t r = 0; r < report.per_rank.size(); ++r) {
      const double other = ps_to_seconds(report.per_rank[r].compute());
      if (r != rank && std::abs(other - pace) <= kAlikeFraction * pace) ++alike;
    }
  }
  const std::string others = alike > 0 ? " and " + std::to_string(alike) + " ranks as slow" : "";
  return " (mostly for rank " + std::to_string(rank) + gpu + others + ")";
}

// The other large shares, so a step split three ways says so.
std::string also_clause(const StepReport& report, TimePs largest) {
  const TimeBreakdown& b = report.mean;
  const std::pair<const char*, TimePs> shares[] = {{"GPU compute", b.compute()},
                                                   {"exposed communication", b.exposed_communication()},
                                                   {"pipeline bubble", b[Category::pipeline_bubble]},
                                                   {"data loading and copies", b.exposed_copy()},
                                                   {"waiting on other ranks", b[Category::waiting]}};
  std::string out;
  for (const auto& [label, time] : shares) {
    if (time == largest || percent(time, b.step) < kAlsoPercent) continue;
    out += (out.empty() ? "; also " : ", ") + fmt("%.0f%% ", percent(time, b.step)) + label;
    if (time == b[Category::waiting]) out += waited_on_words(report);
  }
  return out;
}

std::string main_clause(const StepReport& report, TimePs largest) {
  const TimeBreakdown& b = report.mean;
  if (largest == b.compute()) return compute_verdict(report);
  if (largest == b.exposed_communication()) return communication_verdict(report);
  if (largest == b.exposed_copy()) {
    return fmt("input-bound: %.0f%% of the step is data loading and host/device copies not hidden by compute",
               percent(b.exposed_copy(), b.step));
  }
  if (largest == b[Category::pipeline_bubble]) {
    return fmt(
        "pipeline-bound: %.0f%% of the step is pipeline bubble (stages waiting for activations or gradients "
        "during fill, drain and stage imbalance)",
        percent(largest, b.step));
  }
  const std::string culprit = waited_on_words(report);
  return fmt("idle-bound: GPUs wait %.0f%% of the step on other ranks", percent(largest, b.step)) +
         (culprit.empty() ? " (stragglers or load imbalance)" : culprit);
}

}  // namespace

std::string describe_bottleneck(const StepReport& report) {
  const TimeBreakdown& b = report.mean;
  const TimePs largest = std::max(
      {b.compute(), b.exposed_communication(), b.exposed_copy(), b[Category::pipeline_bubble], b[Category::waiting]});
  if (largest == 0) return "nothing ran";
  return main_clause(report, largest) + also_clause(report, largest) + "; " + links_clause(report);
}

}  // namespace simctl
