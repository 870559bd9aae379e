// `simctl search CONFIG`: the fastest parallel plans for the config's model
// on its GPUs at its global batch (sim/study/plan_search.hpp), as a table,
// optionally as JSON, and the winner as a ready run config.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <nlohmann/json.hpp>
#include <optional>
#include <sstream>
#include <thread>

#include "sim/cli/command.hpp"
#include "sim/cli/options.hpp"
#include "sim/cli/progress_bar.hpp"
#include "sim/study/best_plan_config.hpp"
#include "sim/study/plan_search.hpp"
#include "sim/study/process_group.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

struct Breakdown {
  double compute_ms = 0.0;
  double exposed_comm_ms = 0.0;
  double bubble_ms = 0.0;
  double other_ms = 0.0;  // data loading, host copies, waiting
};

Breakdown breakdown_of(const PointMetrics& m) {
  Breakdown b;
  for (Category c : kAllCategories) {
    const double ms = m.breakdown_ms[static_cast<std::size_t>(c)];
    switch (c) {
      case Category::compute_bound:
      case Category::compute_memory_bound:
      case Category::compute_launch_bound:
      case Category::optimizer: b.compute_ms += ms; break;
      case Category::comm_data:
      case Category::comm_tensor:
      case Category::comm_pipeline:
      case Category::comm_expert:
      case Category::comm_context:
      case Category::comm_other: b.exposed_comm_ms += ms; break;
      case Category::pipeline_bubble: b.bubble_ms += ms; break;
      default: b.other_ms += ms; break;
    }
  }
  return b;
}

std::string format(const char* pattern, double value) {
  char text[64];
  std::snprintf(text, sizeof text, pattern, value);
  return text;
}

// One format for the header and the rows, so the columns line up.
constexpr const char* kHeaderFormat = "%5s %3s %3s %3s %5s %4s %3s %-9s %-8s %3s %11s %7s %9s %9s %9s %9s\n";
constexpr const char* kRowFormat =
    "%5s %3lld %3lld %3lld %5s %4lld %3s %-9s %-8s %3lld %11.2f %7.1f %9.1f %9.2f %9.2f %9.2f\n";

std::string table_header() {
  char lines[2][256];
  std::snprintf(lines[0], sizeof lines[0], kHeaderFormat, "rank", "TP", "PP", "DP", "v", "mb", "SP", "recompute",
                "strategy", "EP", "step", "MFU", "headroom", "compute", "exp.comm", "bubble");
  std::snprintf(lines[1], sizeof lines[1], kHeaderFormat, "", "", "", "", "", "", "", "", "", "", "[ms]", "[%]",
                "[GiB]", "[ms]", "[ms]", "[ms]");
  return std::string(lines[0]) + lines[1];
}

std::string table_row(const std::string& rank, const SearchedPlan& p) {
  const Plan& q = p.plan;
  const Breakdown b = breakdown_of(p.metrics);
  char row[320];
  std::snprintf(row, sizeof row, kRowFormat, rank.c_str(), static_cast<long long>(q.tensor),
                static_cast<long long>(q.pipeline), static_cast<long long>(q.data), virtual_stages_text(q).c_str(),
                static_cast<long long>(q.micro_batch), q.sequence ? "on" : "off",
                std::string(config_word(q.recompute)).c_str(), std::string(config_word(q.strategy)).c_str(),
                static_cast<long long>(q.expert), p.metrics.step_time_ms, 100.0 * p.metrics.mfu,
                p.metrics.min_headroom_gib, b.compute_ms, b.exposed_comm_ms, b.bubble_ms);
  return row;
}

std::string counts_line(const SearchCounts& c) {
  return std::to_string(c.considered) + " considered, " + std::to_string(c.skipped_batch) +
         " skipped (micro_batch * data does not divide the global batch), " + std::to_string(c.invalid) + " invalid, " +
         std::to_string(c.pruned_memory) + " pruned for memory, " + std::to_string(c.pruned_bound) +
         " pruned by bound, " + std::to_string(c.simulated) + " simulated";
}

std::string base_rank_text(const SearchResult& r) {
  if (!r.base_index) return "not run (" + r.base_reason + ")";
  return (r.base_rank_exact ? "rank " : "rank >= ") + std::to_string(*r.base_index + 1) + " of " +
         std::to_string(r.ranked.size()) + " simulated";
}

std::string render_table(const SearchResult& r, std::size_t top) {
  std::ostringstream out;
  out << "search: " << r.model << " on " << r.system_label << "\n";
  out << "plans over " << r.world << " GPUs (TP at most " << r.max_tensor << ", the GPUs per node), global batch "
      << r.global_batch << "\n";
  out << "plans: " << counts_line(r.counts) << "\n\n";
  out << table_header();
  for (std::size_t i = 0; i < r.ranked.size() && i < top; ++i) {
    out << table_row(std::to_string(i + 1) + (r.ranked[i].is_base ? "*" : ""), r.ranked[i]);
  }
  if (r.base_index && *r.base_index >= top) {
    out << "  ...\n" << table_row(std::to_string(*r.base_index + 1) + "*", r.ranked[*r.base_index]);
  }
  out << "\nyour plan (*): " << plan_text(r.base_plan) << ": " << base_rank_text(r);
  if (r.base_index && !r.ranked.empty()) {
    const double base_ms = r.ranked[*r.base_index].metrics.step_time_ms;
    out << ", " << format("%.2f", base_ms) << " ms; the best is "
        << format("%.2f", base_ms / r.ranked.front().metrics.step_time_ms) << "x faster";
  }
  out << "\n";
  return out.str();
}

nlohmann::ordered_json plan_json(std::size_t rank, const SearchedPlan& p) {
  const Plan& q = p.plan;
  const Breakdown b = breakdown_of(p.metrics);
  return {{"rank", rank},
          {"plan", p.text},
          {"tensor", q.tensor},
          {"pipeline", q.pipeline},
          {"data", q.data},
          {"schedule", config_word(q.schedule)},
          {"virtual_stages", q.virtual_stages},
          {"micro_batch", q.micro_batch},
          {"sequence", q.sequence},
          {"activation_recompute", config_word(q.recompute)},
          {"strategy", config_word(q.strategy)},
          {"expert", q.expert},
          {"your_plan", p.is_base},
          {"step_time_ms", p.metrics.step_time_ms},
          {"lower_bound_ms", p.bound_ms},
          {"mfu_percent", 100.0 * p.metrics.mfu},
          {"peak_memory_gib", p.metrics.peak_memory_gib},
          {"memory_headroom_gib", p.metrics.min_headroom_gib},
          {"compute_ms", b.compute_ms},
          {"exposed_comm_ms", b.exposed_comm_ms},
          {"bubble_ms", b.bubble_ms},
          {"other_ms", b.other_ms}};
}

nlohmann::ordered_json render_json(const SearchResult& r, std::size_t top) {
  const SearchCounts& c = r.counts;
  nlohmann::ordered_json plans = nlohmann::ordered_json::array();
  for (std::size_t i = 0; i < r.ranked.size() && i < top; ++i) plans.push_back(plan_json(i + 1, r.ranked[i]));
  if (r.base_index && *r.base_index >= top) plans.push_back(plan_json(*r.base_index + 1, r.ranked[*r.base_index]));
  nlohmann::ordered_json yours = {{"plan", plan_text(r.base_plan)}};
  if (r.base_index) {
    yours["rank"] = *r.base_index + 1;
    yours["rank_exact"] = r.base_rank_exact;
    yours["step_time_ms"] = r.ranked[*r.base_index].metrics.step_time_ms;
  } else {
    yours["not_run"] = r.base_reason;
  }
  return {{"config", r.config_path},
          {"system", r.system_label},
          {"model", r.model},
          {"gpus", r.world},
          {"max_tensor", r.max_tensor},
          {"global_batch", r.global_batch},
          {"counts",
           {{"considered", c.considered},
            {"skipped_batch", c.skipped_batch},
            {"invalid", c.invalid},
            {"pruned_memory", c.pruned_memory},
            {"pruned_bound", c.pruned_bound},
            {"simulated", c.simulated}}},
          {"plans", plans},
          {"your_plan", yours}};
}

template <class T>
T value_or(const ParsedOptions& options, const char* name, T fallback) {
  return options.values.count(name) ? options.values[name].as<T>() : fallback;
}

}  // namespace

po::options_description search_options() {
  po::options_description named;
  named.add_options()("top", po::value<std::size_t>()->value_name("N")->default_value(10),
                      "show (and never prune away) the N fastest plans")(
      "jobs", po::value<unsigned>()->value_name("N"),
      "threads for loading and simulating plans (default: the hardware's; the result is the same for any N)")(
      "json", po::value<std::string>()->value_name("FILE"), "write the ranked plans and the counts as JSON to FILE")(
      "write-best", po::value<std::string>()->value_name("FILE"),
      "write a run config for the fastest plan to FILE (the config with the plan written into its workload)")(
      "exhaustive", "simulate every plan that fits in memory (no lower-bound pruning; slow)");
  return named;
}

int search_command_main(const ParsedOptions& options, std::ostream& out) {
  const std::string config = options.positionals[0];
  SearchOptions search;
  search.top = value_or<std::size_t>(options, "top", 10);
  if (search.top == 0) throw UsageError("--top must be at least 1");
  search.jobs = value_or<unsigned>(options, "jobs", default_threads_per_process());
  if (search.jobs == 0) throw UsageError("--jobs must be at least 1");
  search.prune_by_bound = options.values.count("exhaustive") == 0;
  const std::unique_ptr<ProcessGroup> processes = launched_process_group();
  search.processes = processes.get();
  const SearchResult result = [&] {
    std::optional<ProgressBar> progress;  // rank 0's alone
    if (processes->rank() == 0) {
      progress.emplace();
      progress->stage("searching plans");
    }
    return search_plans(config, search);
  }();
  if (processes->rank() != 0) return 0;  // every rank has the result; rank 0 prints and writes it
  out << render_table(result, search.top);
  const std::string json = value_or<std::string>(options, "json", "");
  if (!json.empty()) {
    std::ofstream file(json);
    if (!file) throw std::runtime_error("cannot write the JSON report to '" + json + "'");
    file << render_json(result, search.top).dump(2) << "\n";
  }
  const std::string best = value_or<std::string>(options, "write-best", "");
  if (!best.empty() && !result.ranked.empty()) {
    write_best_plan_config(config, result.ranked.front().plan, best);
    out << "wrote " << best << "\n";
  }
  const std::int64_t loaded = result.counts.considered - result.counts.skipped_batch;
  char timing[160];
  std::snprintf(
      timing, sizeof timing,
      "search took %.2f s on %u threads per process (%.2f s screening, %.2f s replaying): %.0f plans/s screened\n",
      result.wall_s, search.jobs, result.screen_s, result.replay_s,
      static_cast<double>(loaded) / std::max(result.wall_s, 1e-9));
  std::cerr << timing;
  return 0;
}

}  // namespace simctl
