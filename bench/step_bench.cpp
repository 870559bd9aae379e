// One training step of a whole run config, replayed rank by rank with
// contention: how long simctl takes for each phase, how much memory, and how
// many events per second the engine sustains.
//
//   bench_step [RUN_CONFIG]
//
// The default is configs/dgx_h100x128_gpt3_175b.yaml: GPT-3 175B on 1024
// H100s (TP 8 x PP 8 interleaved x DP 16, 128 nodes on an NDR fat tree).
#include <chrono>
#include <cstdio>
#include <string>

#include "bench/process_stats.hpp"
#include "sim/config/data_root.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/step_report.hpp"
#include "sim/scenario/scenario.hpp"

using namespace simctl;

using bench::peak_rss_mb;
using bench::seconds_since;

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : data_root() + "/configs/dgx_h100x128_gpt3_175b.yaml";
  const auto t0 = std::chrono::steady_clock::now();
  const Scenario scenario = load_scenario(path);
  const double load_s = seconds_since(t0);
  const double load_rss = peak_rss_mb();

  const auto t1 = std::chrono::steady_clock::now();
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning, scenario.collectives);
  const ExecutionResult result = executor.run();
  const double run_s = seconds_since(t1);

  const auto t2 = std::chrono::steady_clock::now();
  const StepReport report = build_step_report(scenario.trace, result, scenario.system, scenario.catalogue,
                                              scenario.labels, {scenario.costs, scenario.rank_memory});
  const double report_s = seconds_since(t2);

  std::printf("run               %s\n", scenario.labels.workload.c_str());
  std::printf("system            %s\n", scenario.labels.system.c_str());
  std::printf("simulated step    %.3f s, MFU %.1f %%\n", ps_to_seconds(result.step_time), 100.0 * report.mfu);
  std::printf("ops               %zu over %zu ranks\n", report.ops, scenario.trace.ranks.size());
  std::printf("wall: load+trace  %.2f s (peak RSS after it %.0f MB)\n", load_s, load_rss);
  std::printf("wall: replay      %.2f s\n", run_s);
  std::printf("wall: report      %.2f s\n", report_s);
  std::printf("wall: total       %.2f s\n", load_s + run_s + report_s);
  std::printf("peak RSS          %.0f MB\n", peak_rss_mb());
  std::printf("events            %llu (%.0f events/s in the replay)\n", static_cast<unsigned long long>(result.events),
              static_cast<double>(result.events) / run_s);
  std::printf("flows             %llu\n", static_cast<unsigned long long>(result.flows));
  return 0;
}
