#pragma once
// Per-link, per-tier and per-device figures of one step. A tier groups the
// directed links by the kinds of part at their two ends ("gpu->nvswitch",
// "nic->leaf", "leaf->spine"); network switches are named by their group
// (leaf, spine, core) because their kind alone does not say their level.
#include <string>
#include <vector>

#include "sim/exec/execution_result.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

struct LinkReport {
  LinkId id = 0;
  std::string name;  // "node0.gpu3 -> node0.nvswitch"
  std::string kind;  // "nvlink4"
  std::string tier;  // "gpu->nvswitch"
  TimePs busy = 0;
  double utilisation = 0.0;  // busy time / step time
  double bytes = 0.0;
  double average_bandwidth_bytes_per_s = 0.0;  // bytes / step time
  double capacity_bytes_per_s = 0.0;           // effective rate (raw x protocol efficiency)
  double bandwidth_utilisation = 0.0;          // average bandwidth / capacity
};

struct TierReport {
  std::string name;  // "leaf->spine"
  int links = 0;
  int busy_links = 0;
  double bytes = 0.0;
  double mean_utilisation = 0.0;  // busy fraction, mean over the tier's links
  double max_utilisation = 0.0;
  double mean_bandwidth_utilisation = 0.0;
  double max_bandwidth_utilisation = 0.0;  // average bandwidth / capacity of its most used link
  // Capacity into the tier's source switches from below over their capacity
  // up this tier (2.0 is 2:1); 0 unless both ends are network switches.
  double oversubscription = 0.0;
};

struct DeviceReport {
  std::string name;
  std::string kind;          // part kind
  double utilisation = 0.0;  // GPUs: compute-stream busy fraction; others: busiest attached link's
  int peers = 0;             // other parts of its kind within one point of it
};

std::string tier_end_label(const Part& part);
// Every directed link, in LinkId order.
std::vector<LinkReport> link_reports(const ExecutionResult& result, const System& system);
// The `count` busiest links (busy time, then id), idle ones left out.
std::vector<LinkReport> busiest_links(const std::vector<LinkReport>& links, std::size_t count);
// Tiers in order of first appearance in the link list.
std::vector<TierReport> tier_reports(const std::vector<LinkReport>& links, const System& system);
// The busiest device of each kind, busiest first, at most `count`;
// `gpu_compute[g]` is the compute time of the system's GPU g (System::gpus()).
std::vector<DeviceReport> busiest_devices(const std::vector<LinkReport>& links, const System& system,
                                          const std::vector<TimePs>& gpu_compute, TimePs step, std::size_t count);

}  // namespace simctl
