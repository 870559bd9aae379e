// Plan search speed (issue #12's goal): the best plan for GPT-3 175B on 64
// A100s within 60 s on 2 cores, and for GPT 22B on 8 A100s within 10 s.
// Prints, per case, the wall time, plans screened per second, the counts
// and the best and published plans.
//
//   bench_search [JOBS]     (default 2: the goal's cores)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "sim/config/data_root.hpp"
#include "sim/study/plan_search.hpp"

using namespace simctl;

namespace {

void bench(const std::string& config, unsigned jobs, double goal_s) {
  SearchOptions options;
  options.jobs = jobs;
  const SearchResult r = search_plans(data_root() + "/" + config, options);
  const SearchCounts& c = r.counts;
  const std::int64_t loaded = c.considered - c.skipped_batch;
  std::printf("%s (%s, %lld GPUs)\n", config.c_str(), r.model.c_str(), static_cast<long long>(r.world));
  std::printf(
      "  wall              %.2f s on %u threads (goal %.0f s: %s): %.2f s loading and screening, "
      "%.2f s replaying\n",
      r.wall_s, jobs, goal_s, r.wall_s <= goal_s ? "met" : "missed", r.screen_s, r.replay_s);
  std::printf("  plans/s           %.0f loaded and screened, %.1f simulated\n", static_cast<double>(loaded) / r.wall_s,
              static_cast<double>(c.simulated) / r.wall_s);
  std::printf(
      "  plans             %lld considered, %lld skipped (batch), %lld invalid, %lld pruned for memory, "
      "%lld pruned by bound, %lld simulated\n",
      static_cast<long long>(c.considered), static_cast<long long>(c.skipped_batch), static_cast<long long>(c.invalid),
      static_cast<long long>(c.pruned_memory), static_cast<long long>(c.pruned_bound),
      static_cast<long long>(c.simulated));
  if (!r.ranked.empty()) {
    std::printf("  best              %s: %.1f ms\n", r.ranked.front().text.c_str(),
                r.ranked.front().metrics.step_time_ms);
  }
  if (r.base_index) {
    std::printf("  published         %s: %.1f ms, rank %s%zu\n", plan_text(r.base_plan).c_str(),
                r.ranked[*r.base_index].metrics.step_time_ms, r.base_rank_exact ? "" : ">= ", *r.base_index + 1);
  }
}

}  // namespace

int main(int argc, char** argv) {
  const unsigned jobs = argc > 1 ? static_cast<unsigned>(std::atoi(argv[1])) : 2u;
  bench("configs/dgx_a100x8_megatron_22b.yaml", jobs, 10.0);
  bench("configs/dgx_a100x64_megatron_175b.yaml", jobs, 60.0);
  return 0;
}
