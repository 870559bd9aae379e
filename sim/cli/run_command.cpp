#include <unistd.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <mutex>
#include <sstream>
#include <stdexcept>
#include <thread>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/plots.hpp"
#include "sim/report/render.hpp"
#include "sim/report/run_outputs.hpp"
#include "sim/scenario/scenario.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

constexpr const char* kUsage = "run CONFIG [--json FILE] [--csv DIR] [--trace FILE] [--plot DIR]";
constexpr std::uint32_t kTimelineRanks = 8;

// A progress bar on stderr for runs that last: silent for the first two
// seconds and whenever stderr is not a terminal, so tests, pipes and logs
// see nothing. The executor reports no progress from inside a run yet, so
// the bar advances by stage (load, simulate, report, write).
class ProgressBar {
 public:
  static constexpr int kStages = 4;
  ProgressBar() {
    if (::isatty(STDERR_FILENO) == 1) worker_ = std::thread([this] { loop(); });
  }
  ProgressBar(const ProgressBar&) = delete;
  ProgressBar& operator=(const ProgressBar&) = delete;
  ~ProgressBar() {
    {
      std::lock_guard lock(mutex_);
      done_ = true;
    }
    wake_.notify_all();
    if (worker_.joinable()) worker_.join();
  }
  void stage(int index, const char* what) {
    std::lock_guard lock(mutex_);
    stage_ = index;
    what_ = what;
  }

 private:
  void loop() {
    const auto start = std::chrono::steady_clock::now();
    bool drawn = false;
    std::unique_lock lock(mutex_);
    while (!wake_.wait_for(lock, std::chrono::milliseconds(200), [this] { return done_; })) {
      const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (elapsed < 2.0) continue;
      const int filled = 20 * stage_ / kStages;
      std::fprintf(stderr, "\r[%s%s] %d/%d %-16s %6.1f s", std::string(filled, '#').c_str(),
                   std::string(20 - filled, '.').c_str(), stage_ + 1, kStages, what_, elapsed);
      std::fflush(stderr);
      drawn = true;
    }
    if (drawn) std::fprintf(stderr, "\r%60s\r", "");
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  bool done_ = false;
  int stage_ = 0;
  const char* what_ = "loading config";
  std::thread worker_;
};

void write_json_file(const std::filesystem::path& path, const nlohmann::json& json, const char* what) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error(std::string("cannot write ") + what + " to '" + path.string() + "'");
  file << json.dump(2) << "\n";
}

std::string option(const ParsedOptions& options, const char* name) {
  return options.values.count(name) ? options.values[name].as<std::string>() : std::string();
}

void write_outputs(const ParsedOptions& options, const RunView& run, std::ostream& out) {
  const std::string json = option(options, "json"), csv = option(options, "csv");
  const std::string trace = option(options, "trace"), plot = option(options, "plot");
  if (!json.empty()) write_json_file(json, render_json(run.report), "the JSON report");
  if (!csv.empty()) write_csv_tables(run, csv);
  if (!trace.empty()) write_json_file(trace, render_trace(run), "the trace");
  if (plot.empty()) return;
  // The charts are drawn from the files; write them into DIR unless asked elsewhere.
  const std::filesystem::path dir(plot);
  std::filesystem::create_directories(dir);
  PlotRequest request{dir, json.empty() ? dir / "report.json" : std::filesystem::path(json),
                      csv.empty() ? dir / "csv" : std::filesystem::path(csv),
                      spread_ranks(static_cast<std::uint32_t>(run.trace.ranks.size()), kTimelineRanks),
                      !run.report.memory.empty() && run.report.memory.front().estimated};
  if (json.empty()) write_json_file(request.json_file, render_json(run.report), "the JSON report");
  if (csv.empty()) write_csv_tables(run, request.csv_dir);
  for (const auto& png : render_plots(request)) out << "wrote " << png.string() << "\n";
}

}  // namespace

int run_command_main(const std::vector<std::string>& args, std::ostream& out) {
  po::options_description named;
  named.add_options()("json", po::value<std::string>(), "write the report as JSON to FILE")(
      "csv", po::value<std::string>(), "write per-op, per-link and per-rank CSV tables into DIR")(
      "trace", po::value<std::string>(), "write a Chrome/Perfetto trace (JSON) to FILE")(
      "plot", po::value<std::string>(), "render the charts (PNG) into DIR");
  const ParsedOptions options = parse_command_options(kUsage, args, named, 1);

  ProgressBar progress;
  const Scenario scenario = load_scenario(options.positionals[0]);
  progress.stage(1, "simulating");
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning, scenario.collectives);
  const ExecutionResult result = executor.run();
  progress.stage(2, "building report");
  const StepReport report = build_step_report(scenario.trace, result, scenario.system, scenario.catalogue,
                                              scenario.labels, {scenario.costs, scenario.rank_memory});
  progress.stage(3, "writing outputs");
  std::ostringstream extra;
  write_outputs(options, RunView{scenario.trace, result, scenario.system, report}, extra);
  out << render_text(report) << extra.str();
  return 0;
}

}  // namespace simctl
