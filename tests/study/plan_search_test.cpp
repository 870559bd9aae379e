// The plan search: the bound never drops a plan an exhaustive search ranks
// in the top N, never exceeds a simulated time, the published plan is found
// and ranked with its own time, and experts get expert-parallel plans.
#include "sim/study/plan_search.hpp"

#include <catch2/catch.hpp>

#include "tests/study/search_configs.hpp"

using namespace simctl;

namespace {

const std::string k22b = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_a100x8_megatron_22b.yaml";

SearchResult search(const std::string& config, std::size_t top, bool prune, unsigned jobs = 2) {
  SearchOptions options;
  options.top = top;
  options.jobs = jobs;
  options.prune_by_bound = prune;
  return search_plans(config, options);
}

void check_bounds_hold(const SearchResult& r) {
  for (const SearchedPlan& p : r.ranked) {
    INFO(p.text);
    CHECK(p.bound_ms > 0.0);
    CHECK(p.bound_ms <= p.metrics.step_time_ms);
  }
}

}  // namespace

TEST_CASE("pruning by bound keeps the exhaustive search's top plans", "[study][search]") {
  const std::string config = testing::small_dense_config();
  constexpr std::size_t kTop = 5;
  const SearchResult pruned = search(config, kTop, true);
  const SearchResult exhaustive = search(config, kTop, false);
  CHECK(exhaustive.counts.pruned_bound == 0);
  CHECK(pruned.counts.pruned_bound > 0);  // the bound did prune something here
  CHECK(pruned.counts.simulated + pruned.counts.pruned_bound == exhaustive.counts.simulated);
  REQUIRE(pruned.ranked.size() >= kTop);
  for (std::size_t i = 0; i < kTop; ++i) {
    INFO("rank " << i + 1);
    CHECK(pruned.ranked[i].text == exhaustive.ranked[i].text);
    CHECK(pruned.ranked[i].metrics.step_time_ms == exhaustive.ranked[i].metrics.step_time_ms);
  }
  check_bounds_hold(exhaustive);
}

TEST_CASE("the same search gives the same ranking on 1 and 3 threads", "[study][search][determinism]") {
  const std::string config = testing::small_dense_config();
  const SearchResult one = search(config, 4, true, 1);
  const SearchResult three = search(config, 4, true, 3);
  REQUIRE(one.ranked.size() == three.ranked.size());
  for (std::size_t i = 0; i < one.ranked.size(); ++i) {
    CHECK(one.ranked[i].text == three.ranked[i].text);
    CHECK(one.ranked[i].metrics.step_time_ms == three.ranked[i].metrics.step_time_ms);
  }
  CHECK(one.counts.pruned_bound == three.counts.pruned_bound);
}

TEST_CASE("on the published 22B run, search's best is at least as fast and ranks the published plan",
          "[study][search]") {
  const SearchResult r = search(k22b, 10, true);
  REQUIRE(!r.ranked.empty());
  REQUIRE(r.base_index);
  const SearchedPlan& published = r.ranked[*r.base_index];
  CHECK(published.is_base);
  CHECK(published.text == "tp=8 pp=1 dp=1 v=1 mb=4 sp=on recompute=selective strategy=ddp ep=1");
  // Its own simulated time: the config replayed as `simctl run` replays it.
  const PointOutcome own = evaluate_point(k22b, {});
  REQUIRE(own.status == PointStatus::ok);
  CHECK(published.metrics.step_time_ms == own.metrics.step_time_ms);
  CHECK(r.ranked.front().metrics.step_time_ms <= published.metrics.step_time_ms);
  CHECK(r.counts.considered == r.counts.skipped_batch + r.counts.invalid + r.counts.pruned_memory +
                                   r.counts.pruned_bound + r.counts.simulated);
  CHECK(r.counts.pruned_memory > 0);  // TP 1 and 2 cannot hold 22B with Adam
  check_bounds_hold(r);
}

TEST_CASE("a mixture of experts gets expert-parallel plans", "[study][search]") {
  const SearchResult r = search(testing::small_moe_config(), 1000, true);
  int expert_parallel = 0;
  for (const SearchedPlan& p : r.ranked) {
    if (p.plan.expert > 1) {
      ++expert_parallel;
      CHECK(p.plan.data % p.plan.expert == 0);
      CHECK(p.plan.strategy != Strategy::zero3);
    }
    if (p.plan.tensor > 1) CHECK(p.plan.sequence);  // MoE with TP needs it
  }
  CHECK(expert_parallel > 0);
  REQUIRE(r.base_index);
  CHECK(r.ranked[*r.base_index].plan.expert == 4);
}

TEST_CASE("a config without a transformer plan is refused", "[study][search]") {
  const std::string config = testing::write_search_config("mlp.yaml", R"(name: search test, an MLP
system: SYSTEMS/dgx_a100.yaml
workload:
  model: mlp-33-512-10
  parallel: {data: 8}
  micro_batch: 4
  global_batch: 32
)");
  CHECK_THROWS_WITH(search_plans(config, {}), Catch::Contains("simctl search plans a transformer"));
}
