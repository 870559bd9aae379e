// The plans a search enumerates: every one within the rules the loader
// checks, nothing the rules allow left out, the global batch kept.
#include "sim/study/plan_space.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <set>

#include "sim/scenario/scenario.hpp"
#include "workloads/layer_split.hpp"

using namespace simctl;

namespace {
const std::string k22bConfig = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_a100x8_megatron_22b.yaml";
}

TEST_CASE("the 22B space keeps TP within a node and divisors of the model", "[study][search]") {
  const Scenario base = load_scenario(k22bConfig);
  const PlanSpace space = enumerate_plans(base.workload, 8, 8);
  REQUIRE(!space.plans.empty());
  std::set<std::string> texts;
  for (const Plan& p : space.plans) {
    INFO(plan_text(p));
    CHECK(p.tensor * p.pipeline * p.data == 8);
    CHECK(64 % p.tensor == 0);
    CHECK(48 % (p.pipeline * p.virtual_stages) == 0);
    CHECK(4 % (p.micro_batch * p.data) == 0);  // global batch 4
    CHECK((p.tensor > 1 || !p.sequence));
    CHECK((p.data > 1 || p.strategy == Strategy::ddp));
    CHECK(p.expert == 1);
    texts.insert(plan_text(p));
  }
  CHECK(texts.size() == space.plans.size());  // no duplicates
  // DP 8 needs micro_batch * 8 to divide 4: never, so those are skipped.
  CHECK(space.skipped_batch > 0);
  // The published plan is one of them.
  CHECK(texts.count("tp=8 pp=1 dp=1 v=1 mb=4 sp=on recompute=selective strategy=ddp ep=1") == 1);
}

TEST_CASE("the TP cap is the GPUs per node", "[study][search]") {
  const Scenario base = load_scenario(k22bConfig);
  for (const Plan& p : enumerate_plans(base.workload, 8, 4).plans) CHECK(p.tensor <= 4);
}

TEST_CASE("a plan round-trips through its overrides and the loader", "[study][search]") {
  const Scenario base = load_scenario(k22bConfig);
  Plan plan = plan_of(base.workload);
  plan.tensor = 4;
  plan.data = 2;
  plan.micro_batch = 1;
  plan.strategy = Strategy::zero2;
  plan.recompute = ActivationRecompute::full;
  ScenarioOptions options;
  options.allow_out_of_memory = true;
  options.overrides = plan_overrides(plan, SourceLocation{"search plan", 0, 0});
  const Scenario loaded = load_scenario(k22bConfig, options);
  CHECK(plan_text(plan_of(loaded.workload)) == plan_text(plan));
  CHECK(loaded.workload.global_batch == 4);
}

TEST_CASE("an uneven pipeline split puts the short chunks at the ends", "[study][search]") {
  const std::vector<std::int64_t> meta = balanced_stage_layers(126, 16);  // Meta's 405B over PP 16
  REQUIRE(meta.size() == 16);
  CHECK(meta.front() == 7);
  CHECK(meta.back() == 7);
  CHECK(std::count(meta.begin(), meta.end(), 8) == 14);
  const std::vector<std::int64_t> titan = balanced_stage_layers(126, 8);  // torchtitan's generated split
  CHECK(titan == std::vector<std::int64_t>{15, 16, 16, 16, 16, 16, 16, 15});
  CHECK(balanced_stage_layers(7, 4) == std::vector<std::int64_t>{1, 2, 2, 2});
  CHECK(balanced_stage_layers(11, 4) == std::vector<std::int64_t>{2, 3, 3, 3});
  CHECK(balanced_stage_layers(10, 4) == std::vector<std::int64_t>{2, 3, 3, 2});
  CHECK(balanced_stage_layers(96, 8).empty());  // even
  CHECK(balanced_stage_layers(4, 8).empty());   // more chunks than blocks
}

TEST_CASE("a 126-block model is searched over pipelines that do not divide it", "[study][search]") {
  const std::string config = std::string(SIMCTL_SOURCE_DIR) + "/configs/reference/llama3_405b_h100x16384.yaml";
  ScenarioOptions quick;
  quick.allow_out_of_memory = true;
  quick.overrides = {ConfigOverride{"workload.parallel.data", "1", SourceLocation{"test", 0, 0}},
                     ConfigOverride{"workload.global_batch", "16", SourceLocation{"test", 0, 0}}};
  const Scenario base = load_scenario(config, quick);
  const PlanSpace space = enumerate_plans(base.workload, 128, 8);
  const Plan* uneven = nullptr;
  for (const Plan& p : space.plans) {
    if (p.pipeline == 8 && p.virtual_stages == 1 && p.tensor == 8) {
      CHECK(p.stage_layers == balanced_stage_layers(126, 8));
      if (!uneven) uneven = &p;
    }
    if (126 % (p.pipeline * p.virtual_stages) == 0) CHECK(p.stage_layers.empty());
  }
  REQUIRE(uneven);
  CHECK_THAT(plan_text(*uneven), Catch::EndsWith(" split=15..16"));
  // The plan loads as written, and an even plan clears the base's own uneven split.
  for (const Plan& plan :
       {*uneven,
        Plan{8, 2, 8, PipelineSchedule::one_f_one_b, 1, 1, true, ActivationRecompute::full, Strategy::zero1, 1, {}}}) {
    ScenarioOptions options = quick;
    const ConfigOverrides written = plan_overrides(plan, SourceLocation{"search plan", 0, 0});
    options.overrides.insert(options.overrides.end(), written.begin(), written.end());
    const Scenario loaded = load_scenario(config, options);
    CHECK(plan_text(plan_of(loaded.workload)) == plan_text(plan));
  }
}
