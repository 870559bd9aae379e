#pragma once
// `simctl search`: the fastest parallel plans for a run config's model,
// GPUs and global batch. Every plan of the space (plan_space.hpp) is loaded
// as the config with the plan written over it; the loader rejects some
// (invalid), the memory estimate prunes those that do not fit (no replay),
// and the rest get a lower bound on their step time from their compute
// kernels alone (sim/exec/compute_bound.hpp). Plans are then replayed in
// ascending bound order, in fixed-size batches; before each batch, plans
// whose bound exceeds the N-th best simulated step time so far cannot enter
// the top N and are pruned. The ranking is by simulated step time, ties by
// plan text, so the result does not depend on the number of threads.
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "sim/study/plan_space.hpp"
#include "sim/study/point_outcome.hpp"
#include "sim/study/process_group.hpp"

namespace simctl {

struct SearchOptions {
  std::size_t top = 10;        // N: the plans the bound must not drop
  unsigned jobs = 1;           // threads for loading and replaying
  bool prune_by_bound = true;  // false: replay every plan that fits (exhaustive)
  std::size_t batch_size = 8;  // plans replayed between pruning decisions (not jobs: determinism)
  // The processes (MPI ranks) sharing the work, each screening and replaying
  // its share on `jobs` threads; null: this process alone. Every rank
  // returns the same result.
  ProcessGroup* processes = nullptr;
  // Called from worker threads (serialised) as plans are screened and replayed.
  std::function<void(const char* phase, std::size_t done, std::size_t total)> on_progress;
};

struct SearchCounts {
  std::int64_t considered = 0;     // plans enumerated (plus the config's own when outside the space)
  std::int64_t skipped_batch = 0;  // micro_batch * data does not divide the global batch (not loaded)
  std::int64_t invalid = 0;        // the loader rejected them
  std::int64_t pruned_memory = 0;  // over a GPU's memory by the estimate
  std::int64_t pruned_bound = 0;   // their lower bound exceeds the N-th best simulated time
  std::int64_t simulated = 0;
};

struct SearchedPlan {
  Plan plan;
  std::string text;       // plan_text(plan)
  double bound_ms = 0.0;  // the compute-stream lower bound
  PointMetrics metrics;   // the replay's figures
  bool is_base = false;   // the config's own plan
};

struct SearchResult {
  std::string config_path;
  std::string system_label;  // "name: 8 x a100 in 1 node"
  std::string model;
  std::int64_t world = 0;       // GPUs every plan uses: the config's data * tensor * pipeline
  std::int64_t max_tensor = 0;  // TP cap: GPUs per node
  std::int64_t global_batch = 0;
  std::vector<SearchedPlan> ranked;  // every simulated plan, fastest first (ties: plan text)
  // The config's own plan: its place in `ranked` (none when it did not
  // run: invalid or out of memory, with why in base_reason), and whether
  // that place is exact (no plan pruned by bound could beat it) or a bound.
  Plan base_plan;
  std::optional<std::size_t> base_index;
  bool base_rank_exact = true;
  std::string base_reason;
  SearchCounts counts;
  // Wall times, not part of the deterministic output: all of it, and the
  // two phases (loading and screening every plan; replaying).
  double wall_s = 0.0;
  double screen_s = 0.0;
  double replay_s = 0.0;
};

// Throws ConfigError when the config itself does not load or has no
// transformer workload to plan.
SearchResult search_plans(const std::string& config_path, const SearchOptions& options);

}  // namespace simctl
