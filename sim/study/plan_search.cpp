#include "sim/study/plan_search.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <exception>
#include <limits>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "sim/config/config_node.hpp"
#include "sim/exec/compute_bound.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/study/sweep_rows.hpp"

namespace simctl {
namespace {

// Where an error in a searched plan's fields is blamed: the search wrote them.
const SourceLocation kSearchOrigin{"search plan", 0, 0};

enum class Screen : std::uint8_t { invalid, out_of_memory, fits };

struct Candidate {
  Plan plan;
  std::string text;
  bool is_base = false;
  Screen screen = Screen::invalid;
  TimePs bound = 0;
  double bound_ms = 0.0;
};

// Runs body(i) for i in [0, count) on `jobs` threads. Each i writes only its
// own slot, so the outcome does not depend on the threads; the exception of
// the lowest failing i is rethrown.
template <class Body>
void parallel_for(std::size_t count, unsigned jobs, Body body) {
  std::atomic<std::size_t> next{0};
  std::vector<std::exception_ptr> errors(count);
  const auto work = [&] {
    for (std::size_t i = next++; i < count; i = next++) {
      try {
        body(i);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  };
  const unsigned threads = std::max(1u, std::min<unsigned>(jobs, static_cast<unsigned>(count)));
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& t : pool) t.join();
  for (const std::exception_ptr& e : errors) {
    if (e) std::rethrow_exception(e);
  }
}

class Progress {
 public:
  explicit Progress(const SearchOptions& options) : callback_(options.on_progress) {}
  void report(const char* phase, std::size_t done, std::size_t total) {
    if (!callback_) return;
    std::lock_guard lock(mutex_);
    callback_(phase, done, total);
  }

 private:
  std::function<void(const char*, std::size_t, std::size_t)> callback_;
  std::mutex mutex_;
};

// Loads the config with the plan written over it: invalid (the loader's
// ConfigError, or a kernel the GPU cannot run), out of memory by the
// estimate, or fits, with the compute-stream lower bound on its step time.
void screen(const std::string& config_path, const Catalogues& catalogues, const std::shared_ptr<const System>& system,
            Candidate& c) {
  ScenarioOptions options;
  options.catalogues = &catalogues;
  options.system = system;
  options.allow_out_of_memory = true;
  options.skip_trace_when_out_of_memory = true;
  options.overrides = plan_overrides(c.plan, kSearchOrigin);
  try {
    const Scenario s = load_scenario(config_path, options);
    if (first_out_of_memory_rank(s)) {
      c.screen = Screen::out_of_memory;
      return;
    }
    c.bound = compute_stream_bound(s.trace, s.system, s.catalogue);
    c.bound_ms = ps_to_seconds(c.bound) * 1e3;
    c.screen = Screen::fits;
  } catch (const std::exception&) {
    // The loader's ConfigError, or a kernel the GPU cannot run
    // (estimate_compute): either way this plan cannot run as written.
    c.screen = Screen::invalid;
  }
}

std::int64_t gpus_per_node(const System& system) {
  std::map<int, std::int64_t> per_node;
  for (EndpointId gpu : system.gpus()) ++per_node[system.part(gpu).node];
  std::int64_t most = 1;
  for (const auto& [node, count] : per_node) most = std::max(most, count);
  return most;
}

// The config's own scenario, checked to hold a transformer plan to search.
Scenario load_base(const std::string& config_path, const Catalogues& catalogues) {
  ScenarioOptions options;
  options.allow_out_of_memory = true;
  options.catalogues = &catalogues;
  Scenario base = load_scenario(config_path, options);
  const WorkloadSpec& w = base.workload;
  if (base.replays_trace_file || w.data_parallel_only_model()) {
    ConfigNode::load_file(config_path)
        .child("workload")
        .fail("simctl search plans a transformer's parallelism; this workload is " +
              std::string(base.replays_trace_file ? "a trace file" : "an MLP, CNN or LSTM (data parallel only)"));
  }
  return base;
}

bool faster(const SearchedPlan& a, const SearchedPlan& b) {
  if (a.metrics.step_time_ms != b.metrics.step_time_ms) return a.metrics.step_time_ms < b.metrics.step_time_ms;
  return a.text < b.text;
}

// The N-th best simulated step time so far, or infinity before N are known.
double nth_best_ms(std::vector<double> times, std::size_t n) {
  if (n == 0 || times.size() < n) return std::numeric_limits<double>::infinity();
  std::nth_element(times.begin(), times.begin() + static_cast<std::ptrdiff_t>(n - 1), times.end());
  return times[n - 1];
}

// Every rank's screening results, on every rank.
void share_screens(ProcessGroup& group, const std::vector<std::size_t>& mine, std::vector<Candidate>& candidates) {
  nlohmann::json sent = nlohmann::json::array();
  for (std::size_t i : mine) {
    sent.push_back({i, static_cast<int>(candidates[i].screen), candidates[i].bound});
  }
  for (const std::string& text : group.all_gather(sent.dump())) {
    for (const nlohmann::json& entry : nlohmann::json::parse(text)) {
      Candidate& c = candidates.at(entry.at(0).get<std::size_t>());
      c.screen = static_cast<Screen>(entry.at(1).get<int>());
      c.bound = entry.at(2).get<TimePs>();
      c.bound_ms = ps_to_seconds(c.bound) * 1e3;
    }
  }
}

// Every rank's replay outcomes of a batch, on every rank (null: it threw).
void share_outcomes(ProcessGroup& group, const std::vector<std::size_t>& mine,
                    std::vector<std::optional<PointOutcome>>& outcomes) {
  nlohmann::json sent = nlohmann::json::array();
  for (std::size_t i : mine) {
    sent.push_back({i, outcomes[i] ? row_to_json(PointRow{i, *outcomes[i]}) : nlohmann::json()});
  }
  for (const std::string& text : group.all_gather(sent.dump())) {
    for (const nlohmann::json& entry : nlohmann::json::parse(text)) {
      auto& outcome = outcomes.at(entry.at(0).get<std::size_t>());
      if (entry.at(1).is_null()) {
        outcome.reset();
      } else {
        outcome = row_from_json(entry.at(1)).outcome;
      }
    }
  }
}

class Replays {
 public:
  Replays(const std::string& config_path, const Catalogues& catalogues, const SearchOptions& options,
          Progress& progress, ProcessGroup& group)
      : config_path_(config_path), catalogues_(catalogues), options_(options), progress_(progress), group_(group) {}

  // Replays candidates in ascending bound order (the config's own plan
  // first, whatever its bound), pruning between fixed-size batches.
  void run(const std::vector<const Candidate*>& by_bound, const Candidate* base) {
    total_ = by_bound.size();
    std::size_t next = 0;
    for (bool first = true;; first = false) {
      std::vector<const Candidate*> batch;
      if (first && base) batch.push_back(base);
      const double threshold =
          options_.prune_by_bound ? nth_best_ms(times_, options_.top) : std::numeric_limits<double>::infinity();
      for (std::size_t picked = 0; picked < options_.batch_size && next < by_bound.size(); ++next) {
        const Candidate* c = by_bound[next];
        if (c->bound_ms > threshold) {  // ascending: every later bound exceeds it too
          next = by_bound.size();
          break;
        }
        if (c == base) continue;
        batch.push_back(c);
        ++picked;
      }
      if (batch.empty()) return;
      replay(batch);
    }
  }

  std::vector<SearchedPlan> take() { return std::move(done_); }
  std::int64_t failed() const { return failed_; }

 private:
  // A replay that throws (or, which screening rules out, does not run) is
  // counted as invalid rather than ending the search.
  //
  // A plan slower than the N-th best known before its batch can never rank
  // in the top N (that N-th best only falls), so only its time is kept; the
  // config's own plan is always reported on.
  void replay(const std::vector<const Candidate*>& batch) {
    std::vector<std::optional<PointOutcome>> outcomes(batch.size());
    const double report_up_to_ms = nth_best_ms(times_, options_.top);
    const std::vector<std::size_t> mine = share_of(batch.size(), group_);
    parallel_for(mine.size(), options_.jobs, [&](std::size_t k) {
      const std::size_t i = mine[k];
      try {
        const double up_to = batch[i]->is_base ? std::numeric_limits<double>::infinity() : report_up_to_ms;
        outcomes[i] = evaluate_point(config_path_, plan_overrides(batch[i]->plan, kSearchOrigin), &catalogues_, up_to);
      } catch (const std::exception&) {
        outcomes[i].reset();
      }
      progress_.report("simulating", ++replayed_, total_);
    });
    if (group_.size() > 1) share_outcomes(group_, mine, outcomes);
    for (std::size_t i = 0; i < batch.size(); ++i) {
      if (!outcomes[i] || outcomes[i]->status != PointStatus::ok) {
        ++failed_;
        continue;
      }
      const Candidate& c = *batch[i];
      done_.push_back(SearchedPlan{c.plan, c.text, c.bound_ms, outcomes[i]->metrics, c.is_base});
      times_.push_back(outcomes[i]->metrics.step_time_ms);
    }
  }

  const std::string& config_path_;
  const Catalogues& catalogues_;
  const SearchOptions& options_;
  Progress& progress_;
  ProcessGroup& group_;
  std::vector<SearchedPlan> done_;
  std::vector<double> times_;
  std::atomic<std::size_t> replayed_{0};
  std::int64_t failed_ = 0;
  std::size_t total_ = 0;
};

}  // namespace

SearchResult search_plans(const std::string& config_path, const SearchOptions& options) {
  const auto started = std::chrono::steady_clock::now();
  SearchResult result;
  result.config_path = config_path;
  Progress progress(options);
  SingleProcess alone;
  ProcessGroup& group = options.processes ? *options.processes : alone;
  const Catalogues catalogues = Catalogues::load();
  {
    const Scenario base = load_base(config_path, catalogues);
    // Plans override only the workload: every plan runs on the base's system.
    const auto system = std::make_shared<const System>(base.system);
    result.system_label = base.labels.system;
    result.model = base.workload.model.name;
    result.world = base.workload.parallel.world_size();
    result.max_tensor = gpus_per_node(base.system);
    result.global_batch = base.workload.global_batch;
    result.base_plan = plan_of(base.workload);
    // The config's context parallelism stays: plans split the GPUs left per CP rank.
    PlanSpace space = enumerate_plans(base.workload, result.world / base.workload.parallel.context, result.max_tensor);
    result.counts.skipped_batch = space.skipped_batch;
    std::vector<Candidate> candidates;
    candidates.reserve(space.plans.size() + 1);
    for (const Plan& plan : space.plans) candidates.push_back(Candidate{plan, plan_text(plan)});
    const std::string base_text = plan_text(result.base_plan);
    auto base_at =
        std::find_if(candidates.begin(), candidates.end(), [&](const Candidate& c) { return c.text == base_text; });
    if (base_at == candidates.end()) {
      candidates.push_back(Candidate{result.base_plan, base_text});
      base_at = candidates.end() - 1;
    }
    base_at->is_base = true;
    result.counts.considered = static_cast<std::int64_t>(candidates.size()) + space.skipped_batch;

    const std::vector<std::size_t> mine = share_of(candidates.size(), group);
    std::atomic<std::size_t> screened{0};
    parallel_for(mine.size(), options.jobs, [&](std::size_t k) {
      screen(config_path, catalogues, system, candidates[mine[k]]);
      progress.report("screening", ++screened, mine.size());
    });
    if (group.size() > 1) share_screens(group, mine, candidates);

    std::vector<const Candidate*> by_bound;
    const Candidate* base_candidate = nullptr;
    for (const Candidate& c : candidates) {
      if (c.screen == Screen::invalid) ++result.counts.invalid;
      if (c.screen == Screen::out_of_memory) ++result.counts.pruned_memory;
      if (c.screen != Screen::fits) continue;
      by_bound.push_back(&c);
      if (c.is_base) base_candidate = &c;
    }
    std::sort(by_bound.begin(), by_bound.end(), [](const Candidate* a, const Candidate* b) {
      return a->bound != b->bound ? a->bound < b->bound : a->text < b->text;
    });
    if (!base_candidate) result.base_reason = base_at->screen == Screen::invalid ? "invalid" : "out of memory";

    const auto screened_at = std::chrono::steady_clock::now();
    result.screen_s = std::chrono::duration<double>(screened_at - started).count();
    Replays replays(config_path, catalogues, options, progress, group);
    replays.run(by_bound, base_candidate);
    result.ranked = replays.take();
    result.replay_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - screened_at).count();
    result.counts.simulated = static_cast<std::int64_t>(result.ranked.size());
    result.counts.invalid += replays.failed();
    result.counts.pruned_bound =
        static_cast<std::int64_t>(by_bound.size()) - result.counts.simulated - replays.failed();
    std::sort(result.ranked.begin(), result.ranked.end(), faster);
    for (std::size_t i = 0; i < result.ranked.size(); ++i) {
      if (result.ranked[i].is_base) result.base_index = i;
    }
    if (base_candidate && !result.base_index) result.base_reason = "its replay failed";
    if (result.base_index) {  // exact unless a plan left unreplayed might beat it
      const double base_ms = result.ranked[*result.base_index].metrics.step_time_ms;
      std::set<std::string> replayed;
      for (const SearchedPlan& p : result.ranked) replayed.insert(p.text);
      for (const Candidate* c : by_bound) {
        if (c->bound_ms <= base_ms && !replayed.count(c->text)) result.base_rank_exact = false;
      }
    }
  }
  result.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  return result;
}

}  // namespace simctl
