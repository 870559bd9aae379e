// The sanity check on the published GPT-3 175B run (64 A100s): a
// full search takes about a minute, so this test is labelled slow.
#include <catch2/catch.hpp>

#include "sim/study/plan_search.hpp"

using namespace simctl;

TEST_CASE("on the published 175B run, search's best is at least as fast and ranks the published plan",
          "[study][search][slow]") {
  const std::string config = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_a100x64_megatron_175b.yaml";
  SearchOptions options;
  options.jobs = 2;
  const SearchResult r = search_plans(config, options);
  REQUIRE(!r.ranked.empty());
  REQUIRE(r.base_index);
  const SearchedPlan& published = r.ranked[*r.base_index];
  CHECK(published.text == "tp=8 pp=8 dp=1 v=3 mb=1 sp=on recompute=selective strategy=ddp ep=1");
  const PointOutcome own = evaluate_point(config, {});
  REQUIRE(own.status == PointStatus::ok);
  CHECK(published.metrics.step_time_ms == own.metrics.step_time_ms);
  CHECK(r.ranked.front().metrics.step_time_ms <= published.metrics.step_time_ms);
  for (const SearchedPlan& p : r.ranked) CHECK(p.bound_ms <= p.metrics.step_time_ms);
}
