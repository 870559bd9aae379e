// `simctl sweep STUDY.yaml` runs every point of a study (or one shard of
// them); `simctl sweep merge DIR` joins shards into the outputs a serial
// run writes.
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <thread>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/progress_bar.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/path_check.hpp"
#include "sim/study/axis_study.hpp"
#include "sim/study/process_group.hpp"
#include "sim/study/study_points.hpp"
#include "sim/study/sweep_fanout.hpp"
#include "sim/study/sweep_outputs.hpp"
#include "sim/study/sweep_shards.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

// "3/8" -> {3, 8}: shard I of N, 1-based.
std::pair<std::uint64_t, std::uint64_t> parse_shard(const std::string& text) {
  unsigned long long shard = 0, shards = 0;
  char rest = 0;
  if (std::sscanf(text.c_str(), "%llu/%llu%c", &shard, &shards, &rest) != 2 || shard < 1 || shard > shards) {
    throw UsageError("--shard '" + text + "' must be I/N with 1 <= I <= N, e.g. --shard 1/4");
  }
  return {shard, shards};
}

// Under mpirun, ranks sharing a machine share its cores unless --jobs says
// otherwise.
int threads_per_process(const ParsedOptions& options) {
  const int jobs = options.values["jobs"].as<int>();
  if (jobs < 1) throw UsageError("--jobs must be at least 1");
  return options.values["jobs"].defaulted() ? static_cast<int>(default_threads_per_process()) : jobs;
}

// Runs `points` on this process's threads, or on every MPI rank's; rows
// come back (on rank 0) in point order either way.
std::vector<PointRow> run_spread(const Study& study, const std::vector<std::uint64_t>& points, int jobs,
                                 ProcessGroup& group) {
  const std::vector<std::uint64_t> mine = points_of_process(points, group);
  std::optional<ProgressBar> progress;  // rank 0's alone: one line, not one per rank
  if (group.rank() == 0) progress.emplace();
  PointsProgress report;
  if (progress && progress->live()) {
    progress->stage("simulating points");
    progress->points(0, mine.size());
    report = [&progress](std::size_t done, std::size_t total) { progress->points(done, total); };
  }
  const std::vector<PointRow> rows = run_points(study, mine, jobs, report);
  return group.size() == 1 ? rows : gather_rows(group, rows);
}

// A study file, or with --axis a run config and the axes given here.
Study study_to_run(const ParsedOptions& options) {
  const std::string& path = options.positionals[0];
  const bool readable = file_problem(path).empty();  // else load_study names the problem
  const bool is_study = readable && ConfigNode::load_file(path).has("study");
  if (!options.values.count("axis")) {
    if (readable && !is_study) {
      throw UsageError(path + " is a run config, not a study: give its axes, e.g. simctl sweep " + path +
                       " --axis 'workload.micro_batch=[1, 2, 4]', or a study file (docs/studies.md)");
    }
    return load_study(path);
  }
  if (is_study) throw UsageError(path + " is a study file with axes of its own; --axis varies a run config");
  return axis_study(path, options.values["axis"].as<std::vector<std::string>>());
}

SweepOutputs requested_outputs(const ParsedOptions& options) {
  return {string_option(options, "json"), string_option(options, "csv"), string_option(options, "plot"),
          options.values["top"].as<std::size_t>()};
}

po::options_description output_options() {
  po::options_description named;
  named.add_options()("json", po::value<std::string>()->value_name("FILE"),
                      "write every point as JSON to FILE (keys and units: docs/studies.md)")(
      "csv", po::value<std::string>()->value_name("FILE"), "write one CSV row per point to FILE (units in headers)")(
      "plot", po::value<std::string>()->value_name("DIR"),
      "render the charts (PNG: step time and throughput per axis, Pareto fronts of cost and energy) into DIR")(
      "top", po::value<std::size_t>()->default_value(20)->value_name("N"),
      "rows of the terminal table, best first (0: every point)");
  return named;
}

}  // namespace

po::options_description sweep_options() {
  po::options_description named = output_options();
  named.add_options()("jobs,j",
                      po::value<int>()->default_value(static_cast<int>(default_threads_per_process()))->value_name("N"),
                      "points simulated at once, one per thread (default: the machine's cores)")(
      "shard", po::value<std::string>()->value_name("I/N"),
      "run only shard I of N (1-based: the points whose number % N is I-1); needs --out")(
      "out", po::value<std::string>()->value_name("DIR"),
      ("with --shard: write the shard's rows to " + shard_file("DIR", 1, 2).string() +
       " (shard 1 of 2; I and N zero-padded to four digits) for `simctl sweep merge DIR`")
          .c_str())("yes", "run a study of more than 1,000,000 points")(
      "axis", po::value<std::vector<std::string>>()->composing()->value_name("FIELD=VALUES"),
      "sweep a run config instead of a study file: FIELD (a config path, as --set and study axes take) over "
      "VALUES, a YAML list ('workload.micro_batch=[1, 2, 4]'); repeat for more axes, the first varying slowest");
  return named;
}

po::options_description sweep_merge_options() { return output_options(); }

int sweep_command_main(const ParsedOptions& options, std::ostream& out) {
  const Study study = study_to_run(options);
  check_point_count(study, options.values.count("yes") > 0);
  const std::string shard_text = string_option(options, "shard"), out_dir = string_option(options, "out");
  if (!shard_text.empty() && out_dir.empty()) throw UsageError("--shard needs --out DIR for the shard's rows");
  const auto [shard, shards] =
      shard_text.empty() ? std::pair<std::uint64_t, std::uint64_t>{1, 1} : parse_shard(shard_text);
  const int jobs = threads_per_process(options);
  const std::unique_ptr<ProcessGroup> group = launched_process_group();
  const std::vector<PointRow> rows = run_spread(study, shard_points(point_count(study), shard, shards), jobs, *group);
  if (group->rank() != 0) return 0;  // rank 0 writes everything
  if (!out_dir.empty()) {
    out << "wrote " << write_shard(out_dir, study, shard, shards, rows).string() << " (" << rows.size() << " of "
        << point_count(study) << " points)\n";
    return 0;
  }
  out << write_sweep_outputs(study, rows, requested_outputs(options));
  return 0;
}

int sweep_merge_command_main(const ParsedOptions& options, std::ostream& out) {
  const MergedSweep merged = merge_shards(options.positionals[0]);
  out << write_sweep_outputs(merged.study, merged.rows, requested_outputs(options));
  return 0;
}

}  // namespace simctl
