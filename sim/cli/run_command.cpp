#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/progress_bar.hpp"
#include "sim/cli/set_option.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/plots.hpp"
#include "sim/report/render.hpp"
#include "sim/report/run_outputs.hpp"
#include "sim/scenario/clock_overflow_error.hpp"
#include "sim/scenario/inference_run.hpp"
#include "sim/scenario/scenario.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

constexpr std::uint32_t kTimelineRanks = 8;

void write_json_file(const std::filesystem::path& path, const nlohmann::json& json, const char* what) {
  std::ofstream file(path);
  if (!file) throw std::runtime_error(std::string("cannot write ") + what + " to '" + path.string() + "'");
  file << json.dump(2) << "\n";
}

// --trace-ranks and --trace-window, checked against the run's ranks before
// it is simulated, so a typo does not cost a long run.
OutputSelection output_selection(const ParsedOptions& options, std::uint32_t rank_count) {
  const bool detailed = options.values.count("trace") || options.values.count("csv");
  if (!detailed && (options.values.count("trace-ranks") || options.values.count("trace-window"))) {
    throw UsageError("--trace-ranks and --trace-window choose the ops of --trace and --csv; give one of those");
  }
  if (options.values.count("csv-gz") && !options.values.count("csv") && !options.values.count("plot")) {
    throw UsageError("--csv-gz gzips the tables of --csv DIR (or of --plot); give one of those");
  }
  OutputSelection selection;
  const std::string ranks = string_option(options, "trace-ranks"), window = string_option(options, "trace-window");
  try {
    if (!ranks.empty()) selection.keep_ranks(ranks, rank_count);
  } catch (const SelectionError& e) {
    throw UsageError("--trace-ranks " + ranks + ": " + e.what());
  }
  try {
    if (!window.empty()) selection.keep_window(window);
  } catch (const SelectionError& e) {
    throw UsageError("--trace-window " + window + ": " + e.what());
  }
  return selection;
}

// The timeline chart's ranks: spread over the ranks the CSV tables keep.
std::vector<std::uint32_t> timeline_ranks(const OutputSelection& selection, std::uint32_t rank_count) {
  const std::vector<std::uint32_t> kept = selection.kept_ranks(rank_count);
  std::vector<std::uint32_t> chosen;
  for (std::uint32_t i : spread_ranks(static_cast<std::uint32_t>(kept.size()), kTimelineRanks))
    chosen.push_back(kept[i]);
  return chosen;
}

void write_outputs(const ParsedOptions& options, const OutputSelection& selection, const RunView& run,
                   std::ostream& out) {
  const std::string json = string_option(options, "json"), csv = string_option(options, "csv");
  const std::string trace = string_option(options, "trace"), plot = string_option(options, "plot");
  const auto rank_count = static_cast<std::uint32_t>(run.trace.ranks.size());
  const bool gzip_csv = options.values.count("csv-gz") > 0;
  if (!json.empty()) write_json_file(json, render_json(run.report), "the JSON report");
  if (!csv.empty()) write_csv_tables(run, {csv, selection, gzip_csv});
  if (!trace.empty()) write_trace(run, selection, trace);
  if (plot.empty()) return;
  // The charts are drawn from the files; write them into DIR unless asked elsewhere.
  const std::filesystem::path dir(plot);
  std::filesystem::create_directories(dir);
  PlotRequest request{dir,
                      json.empty() ? dir / "report.json" : std::filesystem::path(json),
                      csv.empty() ? dir / "csv" : std::filesystem::path(csv),
                      gzip_csv ? ".csv.gz" : ".csv",
                      timeline_ranks(csv.empty() ? OutputSelection() : selection, rank_count),
                      !run.report.memory.empty() && run.report.memory.front().estimated};
  if (json.empty()) write_json_file(request.json_file, render_json(run.report), "the JSON report");
  if (csv.empty()) write_csv_tables(run, {request.csv_dir, {}, gzip_csv});
  for (const auto& png : render_plots(request)) out << "wrote " << png.string() << "\n";
}

// An inference workload replays several serving steps, not one training
// step: its report is its own (sim/report/inference_report.hpp).
int run_inference_main(const ParsedOptions& options, const Scenario& scenario, ProgressBar& progress,
                       std::ostream& out) {
  for (const char* name : {"csv", "trace", "plot", "trace-ranks", "trace-window", "csv-gz"}) {
    if (options.values.count(name))
      throw UsageError(std::string("--") + name + " is not available for an inference workload (task: inference); " +
                       "use --json");
  }
  progress.stage("simulating prefill and decode");
  const InferenceReport report = run_inference(scenario);
  const std::string json = string_option(options, "json");
  if (!json.empty()) write_json_file(json, render_inference_json(report), "the JSON report");
  out << render_inference_text(report);
  return 0;
}

}  // namespace

po::options_description run_options() {
  po::options_description named;
  named.add_options()("json", po::value<std::string>()->value_name("FILE"),
                      "write the report as JSON to FILE (fields and units: docs/output.md)")(
      "csv", po::value<std::string>()->value_name("DIR"),
      "write the CSV tables (ops, links, ranks, tiers, critical path; times in ms) into DIR")(
      "csv-gz", "gzip the CSV tables (ops.csv.gz, ...)")(
      "trace", po::value<std::string>()->value_name("FILE"),
      "write a Chrome/Perfetto trace (JSON, times in us) of every op to FILE, gzipped when FILE ends in .gz")(
      "trace-ranks", po::value<std::string>()->value_name("LIST"),
      "keep only these ranks' ops in --trace and ops.csv, for example 0-7,64")(
      "trace-window", po::value<std::string>()->value_name("T0..T1"),
      "keep only the ops that overlap this window of simulated time in --trace and ops.csv, for example "
      "1.2s..1.4s")("plot", po::value<std::string>()->value_name("DIR"),
                    "render the charts (PNG: breakdown, timeline, link heatmap, memory) into DIR")(
      "ignore-memory",
      "simulate a plan whose memory estimate exceeds a GPU's capacity instead of refusing it; the report "
      "is marked OUT OF MEMORY");
  add_set_option(named);
  return named;
}

int run_command_main(const ParsedOptions& options, std::ostream& out) {
  ProgressBar progress;
  ScenarioOptions load;
  load.allow_out_of_memory = options.values.count("ignore-memory") > 0;
  load.overrides = set_overrides(options);
  const Scenario scenario = load_scenario(options.positionals[0], load);
  print_set_line(load.overrides, out);
  if (scenario.workload.inference) return run_inference_main(options, scenario, progress, out);
  const OutputSelection selection = output_selection(options, static_cast<std::uint32_t>(scenario.trace.ranks.size()));
  progress.stage("simulating");
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning, scenario.collectives);
  executor.set_fold_tolerance(scenario.fold_tolerance);
  if (progress.live()) executor.on_progress([&progress](const ReplayProgress& p) { progress.replay(p); });
  const ExecutionResult result = within_clock(scenario, options.positionals[0], [&executor] { return executor.run(); });
  progress.stage("building report");
  const StepReport report = build_step_report(scenario.trace, result, scenario.system, scenario.catalogue,
                                              scenario.labels, {scenario.costs, scenario.rank_memory});
  progress.stage("writing outputs");
  std::ostringstream extra;
  write_outputs(options, selection, RunView{scenario.trace, result, scenario.system, report}, extra);
  out << render_text(report) << extra.str();
  return 0;
}

}  // namespace simctl
