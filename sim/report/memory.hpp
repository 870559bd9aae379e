#pragma once
// Memory per rank: what occupies the GPU's memory and the headroom left.
//
// The figures come from the workload's memory estimator. Until it lands
// (workloads/memory_*.hpp), run_command passes no items and the report shows
// each GPU's capacity with `estimated: false`: this is the hook to fill.
#include <string>
#include <vector>

namespace simctl {

struct MemoryItem {
  std::string name;  // "weights", "gradients", "optimizer_states", "activations", ...
  double bytes = 0.0;
};

struct RankMemory {
  std::vector<MemoryItem> items;
  bool estimated = false;  // false: no estimate was available for this run
  double used_bytes = 0.0;
  double capacity_bytes = 0.0;
  double headroom_bytes = 0.0;  // capacity - used; negative when the plan does not fit

  bool out_of_memory() const { return estimated && headroom_bytes < 0.0; }
};

// Builds one rank's entry from its estimate (empty: none) and its GPU's capacity.
RankMemory rank_memory(std::vector<MemoryItem> items, double capacity_bytes);

}  // namespace simctl
