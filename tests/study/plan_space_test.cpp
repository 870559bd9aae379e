// The plans a search enumerates: every one within the rules the loader
// checks, nothing the rules allow left out, the global batch kept.
#include "sim/study/plan_space.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "sim/scenario/scenario.hpp"

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
