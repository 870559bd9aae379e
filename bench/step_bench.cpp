// One training step of a whole run config, replayed rank by rank with
// contention: how long simctl takes for each phase, how much memory, and how
// many events per second the engine sustains.
//
//   bench_step [--every-rank] [RUN_CONFIG]
//
// The default is configs/dgx_h100x128_gpt3_175b.yaml: GPT-3 175B on 1024
// H100s (TP 8 x PP 8 interleaved x DP 16, 128 nodes on an NDR fat tree). The
// 16,384-GPU case is configs/llama3_405b_16k.yaml (Llama 3 405B, TP 8 x PP 16
// x DP 128). Of alike data-parallel replicas one is replayed and the others
// share its timings (sim/exec/replica_fold.hpp); --every-rank replays every
// rank instead.
// CPU time is the process's user + system time: on a shared machine it is
// the figure to compare, wall time also counts waiting for a core.
#include <chrono>
#include <cstdio>
#include <string>

#include "bench/process_stats.hpp"
#include "sim/config/data_root.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/step_report.hpp"
#include "sim/scenario/scenario.hpp"

using namespace simctl;

using bench::cpu_seconds;
using bench::peak_rss_mb;
using bench::seconds_since;

int main(int argc, char** argv) {
  ReplayMode mode = ReplayMode::fold_alike;
  std::string path = data_root() + "/configs/dgx_h100x128_gpt3_175b.yaml";
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--every-rank") {
      mode = ReplayMode::every_rank;
    } else {
      path = arg;
    }
  }
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  const Scenario scenario = load_scenario(path);
  const double load_s = seconds_since(t0);
  const double load_cpu = cpu_seconds() - cpu0;
  const double load_rss = peak_rss_mb();

  const auto t1 = std::chrono::steady_clock::now();
  const double cpu1 = cpu_seconds();
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning, scenario.collectives);
  executor.set_replay_mode(mode);
  executor.set_fold_tolerance(scenario.fold_tolerance);
  const ExecutionResult result = executor.run();
  const double run_s = seconds_since(t1);
  const double run_cpu = cpu_seconds() - cpu1;

  const auto t2 = std::chrono::steady_clock::now();
  const double cpu2 = cpu_seconds();
  const StepReport report = build_step_report(scenario.trace, result, scenario.system, scenario.catalogue,
                                              scenario.labels, {scenario.costs, scenario.rank_memory});
  const double report_s = seconds_since(t2);
  const double report_cpu = cpu_seconds() - cpu2;

  std::printf("run               %s\n", scenario.labels.workload.c_str());
  std::printf("system            %s\n", scenario.labels.system.c_str());
  std::printf("simulated step    %.3f s, MFU %.1f %%\n", ps_to_seconds(result.step_time), 100.0 * report.mfu);
  std::printf("ops               %zu over %zu ranks\n", report.ops, scenario.trace.ranks.size());
  std::printf("replayed          %s (%u replicas folded into one)\n",
              executor.replicas_folded() > 1 ? "alike replicas once" : "every rank", executor.replicas_folded());
  if (scenario.fold_tolerance > 0 && executor.replicas_folded() > 1) {
    std::printf("fold tolerance    %.3f us (replay.fold_tolerance); the largest drift accepted %.3f us\n",
                ps_to_seconds(scenario.fold_tolerance) * 1e6, ps_to_seconds(executor.fold_drift()) * 1e6);
  }
  if (const auto& abandoned = executor.fold_abandoned()) {
    std::printf("fold abandoned    at %.3f s simulated: %s\n", ps_to_seconds(abandoned->at), abandoned->reason.c_str());
  }
  std::printf("                  CPU s     wall s\n");
  std::printf("load+trace        %6.2f    %6.2f   (peak RSS after it %.0f MB)\n", load_cpu, load_s, load_rss);
  std::printf("replay            %6.2f    %6.2f\n", run_cpu, run_s);
  std::printf("report            %6.2f    %6.2f\n", report_cpu, report_s);
  std::printf("total             %6.2f    %6.2f\n", load_cpu + run_cpu + report_cpu, load_s + run_s + report_s);
  std::printf("peak RSS          %.0f MB\n", peak_rss_mb());
  std::printf("events            %llu (%.0f events per CPU second in the replay)\n",
              static_cast<unsigned long long>(result.events), static_cast<double>(result.events) / run_cpu);
  std::printf("flows             %llu\n", static_cast<unsigned long long>(result.flows));
  return 0;
}
