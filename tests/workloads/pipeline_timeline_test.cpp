// Pipeline schedules judged on simulated timelines, not on formulas: the
// bubble is read off the replayed step (the report's pipeline_bubble
// category), and the activations a stage holds are counted from when each
// micro-batch's forward starts until its backward ends on that stage.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cctype>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <utility>

#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"

using namespace simctl;

namespace {

// The micro-batch (and chunk) a pipeline op belongs to: its name's
// "mbN." or "mbN.cK." prefix; empty for ops outside any pass.
std::string pass_key(const std::string& name) {
  if (name.rfind("mb", 0) != 0) return {};
  std::size_t end = name.find('.');
  if (end == std::string::npos) return {};
  if (name.compare(end + 1, 1, "c") == 0 && end + 2 < name.size() && std::isdigit(name[end + 2])) {
    end = name.find('.', end + 1);
  }
  return name.substr(0, end);
}

// Most chunk passes whose activations one rank holds at once: a pass holds
// them from its first forward op's start to its last backward op's end.
int peak_held_passes(const testing::PlanRun& run, std::uint32_t rank) {
  const auto& ops = run.scenario.trace.ops(rank);
  const auto& timings = run.result.timeline(rank).ops;
  std::map<std::string, std::pair<TimePs, TimePs>> held;  // pass -> (first forward start, last backward end)
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!std::holds_alternative<ComputeWork>(ops[i].work)) continue;
    const std::string key = pass_key(ops[i].name);
    if (key.empty()) continue;
    auto [it, added] = held.emplace(key, std::pair{std::numeric_limits<TimePs>::max(), TimePs{0}});
    if (ops[i].phase == OpPhase::forward) it->second.first = std::min(it->second.first, timings[i].start);
    if (ops[i].phase == OpPhase::backward) it->second.second = std::max(it->second.second, timings[i].end);
  }
  std::vector<std::pair<TimePs, int>> edges;
  for (const auto& [key, span] : held) {
    edges.push_back({span.first, +1});
    edges.push_back({span.second, -1});
  }
  std::sort(edges.begin(), edges.end());  // at equal times, -1 sorts first: a freed pass makes room
  int now = 0, peak = 0;
  for (const auto& [t, delta] : edges) peak = std::max(peak, now += delta);
  return peak;
}

struct PipelineFigures {
  double step_s = 0;
  double bubble_s = 0;           // mean over ranks
  double compute_s = 0;          // mean over ranks
  double pass_compute_s = 0;     // mean over ranks, the optimizer left out
  std::vector<int> peak_passes;  // per pipeline stage (rank r is stage r here: TP = DP = 1)
};

PipelineFigures figures_of(const testing::PlanRun& run) {
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  std::vector<TimeBreakdown> ranks;
  PipelineFigures f;
  for (std::uint32_t r = 0; r < run.scenario.trace.ranks.size(); ++r) {
    ranks.push_back(rank_breakdown(run.scenario.trace, run.result, rendezvous, r));
    f.peak_passes.push_back(peak_held_passes(run, r));
  }
  const TimeBreakdown mean = mean_breakdown(ranks);
  f.step_s = run.step_s();
  f.bubble_s = ps_to_seconds(mean[Category::pipeline_bubble]);
  f.compute_s = ps_to_seconds(mean.compute());
  f.pass_compute_s = ps_to_seconds(mean.compute() - mean[Category::optimizer]);
  return f;
}

// Under `ideal`: the schedules' own bubbles, with no eager host issuing the
// stages' kernels at its own pace.
PipelineFigures figures(const std::string& config) { return figures_of(testing::run_config_under(config, "ideal")); }

}  // namespace

TEST_CASE("PP4, 8 micro-batches: 1F1B has GPipe's bubble and holds fewer activations", "[plans][pipeline]") {
  const PipelineFigures gpipe = figures("configs/dgx_h100x4_pp4_gpipe.yaml");
  const PipelineFigures one_f_one_b = figures("configs/dgx_h100x4_pp4_1f1b.yaml");
  INFO("bubble GPipe " << gpipe.bubble_s << " s, 1F1B " << one_f_one_b.bubble_s << " s");
  REQUIRE(gpipe.bubble_s > 0);
  CHECK(one_f_one_b.bubble_s == Approx(gpipe.bubble_s).epsilon(0.05));
  CHECK(one_f_one_b.step_s == Approx(gpipe.step_s).epsilon(0.05));
  // The bubble emerges from the replay; on balanced stages it lands near the
  // textbook (p - 1) / (m + p - 1) share of the step, which is not used anywhere.
  CHECK(gpipe.bubble_s / gpipe.step_s == Approx(3.0 / 11.0).epsilon(0.15));
  for (std::size_t stage = 0; stage < 4; ++stage) {
    INFO("stage " << stage);
    CHECK(gpipe.peak_passes[stage] == 8);
    CHECK(one_f_one_b.peak_passes[stage] == 4 - static_cast<int>(stage));
  }
}

TEST_CASE("PP4, 8 micro-batches: interleaving two chunks per stage roughly halves the bubble", "[plans][pipeline]") {
  const PipelineFigures plain = figures("configs/dgx_h100x4_pp4_1f1b.yaml");
  const PipelineFigures interleaved = figures("configs/dgx_h100x4_pp4_interleaved.yaml");
  const double ratio = interleaved.bubble_s / plain.bubble_s;
  INFO("bubble 1F1B " << plain.bubble_s << " s, interleaved " << interleaved.bubble_s << " s, ratio " << ratio);
  CHECK(ratio > 0.40);
  CHECK(ratio < 0.65);
  CHECK(interleaved.step_s < plain.step_s);
  // The work is the same; only its order changed.
  CHECK(interleaved.compute_s == Approx(plain.compute_s).epsilon(0.02));
}

namespace {

// The ideal case of the bubble formula: equal stages (layers only, a
// vocabulary too small to weigh on the first and last stage) and
// communication nearly free against the compute (a 24 MiB activation over
// NVLink against a stage's ~11 ms forward).
std::string ideal_pipeline_config(std::int64_t virtual_stages) {
  const std::string schedule =
      virtual_stages > 1 ? "interleaved, virtual_stages: " + std::to_string(virtual_stages) : std::string("1f1b");
  return "name: ideal pipeline\nsystem: " + testing::config_path("configs/systems/dgx_h100.yaml") +
         "\nworkload:\n"
         "  model: {layers: 16, hidden: 6144, heads: 48, vocab: 256, seq_len: 2048}\n"
         "  parallel: {data: 1, tensor: 1, pipeline: 4, schedule: " +
         schedule +
         "}\n"
         "  micro_batch: 1\n"
         "  global_batch: 8\n"
         "  precision: bf16\n";
}

PipelineFigures ideal_figures(std::int64_t virtual_stages) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_bubble_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / ("v" + std::to_string(virtual_stages) + ".yaml");
  std::ofstream(file) << ideal_pipeline_config(virtual_stages);
  return figures_of(testing::run_scenario(load_scenario(file.string())));
}

}  // namespace

TEST_CASE("PP4, 8 micro-batches, ideal stages: the bubble is (p-1)/(v*m) of the work", "[plans][pipeline]") {
  // Per rank, the bubble against the forward and backward work it runs (the
  // optimizer excluded: every stage runs the same one after its last
  // backward): (p - 1) / (v * m), the formula of Narayanan et al. 2021, sec. 2.2.
  for (std::int64_t v : {1, 2}) {
    const PipelineFigures f = ideal_figures(v);
    const double expected = 3.0 / (static_cast<double>(v) * 8.0);
    const double share = f.bubble_s / f.pass_compute_s;
    INFO("v = " << v << ": bubble " << f.bubble_s << " s over " << f.pass_compute_s << " s of passes = " << share
                << ", formula " << expected);
    CHECK(share == Approx(expected).epsilon(0.03));
  }
}
