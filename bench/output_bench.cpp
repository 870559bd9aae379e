// The detailed outputs of one large step: how long --trace and --csv take
// to write, gzipped or not, whole or selected, how large they are and how
// much memory the process needed.
//
//   bench_outputs [RUN_CONFIG] [OUT_DIR]
//
// The default is configs/dgx_h100x16_gpt22b_tp8_dp16.yaml: GPT 22B on 128
// H100s, 1.7 million ops. Files go into OUT_DIR (default: a folder under the
// system's temp directory) and are removed afterwards.
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <functional>
#include <string>

#include "bench/process_stats.hpp"
#include "sim/config/data_root.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/run_outputs.hpp"
#include "sim/report/step_report.hpp"
#include "sim/scenario/scenario.hpp"

using namespace simctl;
namespace fs = std::filesystem;

using bench::cpu_seconds;
using bench::peak_rss_mb;
using bench::seconds_since;

namespace {

std::uintmax_t bytes_under(const fs::path& path) {
  if (fs::is_regular_file(path)) return fs::file_size(path);
  std::uintmax_t total = 0;
  for (const auto& entry : fs::recursive_directory_iterator(path)) {
    if (entry.is_regular_file()) total += entry.file_size();
  }
  return total;
}

void measure(const char* label, const fs::path& path, const std::function<void()>& write) {
  const auto t0 = std::chrono::steady_clock::now();
  const double cpu0 = cpu_seconds();
  write();
  std::printf("%-34s %7.2f  %7.2f  %9.1f  %8.0f\n", label, cpu_seconds() - cpu0, seconds_since(t0),
              static_cast<double>(bytes_under(path)) / 1e6, peak_rss_mb());
}

}  // namespace

int main(int argc, char** argv) {
  const std::string config = argc > 1 ? argv[1] : data_root() + "/configs/dgx_h100x16_gpt22b_tp8_dp16.yaml";
  const fs::path dir = argc > 2 ? fs::path(argv[2]) : fs::temp_directory_path() / "simctl_bench_outputs";
  fs::remove_all(dir);
  fs::create_directories(dir);

  const Scenario scenario = load_scenario(config);
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning, scenario.collectives);
  const ExecutionResult result = executor.run();
  const StepReport report = build_step_report(scenario.trace, result, scenario.system, scenario.catalogue,
                                              scenario.labels, {scenario.costs, scenario.rank_memory});
  const RunView run{scenario.trace, result, scenario.system, report};
  const auto ranks = static_cast<std::uint32_t>(scenario.trace.ranks.size());

  std::printf("run      %s\n", scenario.labels.workload.c_str());
  std::printf("ops      %zu over %u ranks; peak RSS after the run %.0f MB\n", report.ops, ranks, peak_rss_mb());
  std::printf("%-34s %7s  %7s  %9s  %8s\n", "output", "CPU s", "wall s", "MB", "peak MB");

  OutputSelection all;
  measure("--trace t.json", dir / "t.json", [&] { write_trace(run, all, dir / "t.json"); });
  measure("--trace t.json.gz", dir / "t.json.gz", [&] { write_trace(run, all, dir / "t.json.gz"); });
  measure("--csv DIR", dir / "csv", [&] { write_csv_tables(run, {dir / "csv", all, false}); });
  measure("--csv DIR --csv-gz", dir / "csv_gz", [&] { write_csv_tables(run, {dir / "csv_gz", all, true}); });
  OutputSelection eight;
  eight.keep_ranks("0-7", ranks);
  measure("--trace t.json --trace-ranks 0-7", dir / "t8.json", [&] { write_trace(run, eight, dir / "t8.json"); });
  fs::remove_all(dir);
  return 0;
}
