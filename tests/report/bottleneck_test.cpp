// The bottleneck verdict's words about links: a link is called a hot spot
// only when it is materially busy (at least half the step) as well as far
// busier than its tier; links busy for a sliver of the step are called
// lightly used, however uneven, and a link standing out among them is only
// the busiest.
#include "sim/report/bottleneck.hpp"

#include <catch2/catch.hpp>

using namespace simctl;

namespace {

// A compute-bound step of 100 us whose gpu->nvswitch tier of 8 links has one
// link busy `top` of the step and the tier a mean of `mean`.
StepReport step_with_links(double top, double mean) {
  StepReport r;
  r.mean.step = 100'000'000;
  r.mean[Category::compute_bound] = r.mean.step;
  LinkReport link;
  link.name = "node0.gpu0 -> node0.nvswitch";
  link.tier = "gpu->nvswitch";
  link.utilisation = top;
  r.busiest_links = {link};
  TierReport tier;
  tier.name = "gpu->nvswitch";
  tier.links = 8;
  tier.busy_links = 8;
  tier.mean_utilisation = mean;
  tier.max_utilisation = top;
  r.tiers = {tier};
  return r;
}

}  // namespace

TEST_CASE("a 1 %-busy link is not a hot spot: the links are lightly used", "[report][bottleneck]") {
  // 2.5 times its tier's mean, but busy for 1 % of the step.
  const std::string verdict = describe_bottleneck(step_with_links(0.01, 0.004));
  CHECK_THAT(verdict, Catch::Contains("gpu\u2192nvswitch links are lightly used, up to 1% busy (mean 0%)"));
  CHECK_THAT(verdict, !Catch::Contains("hot spot"));
  // It is still named, as the busiest: the tier's figures would hide it.
  CHECK_THAT(verdict,
             Catch::Contains("node0.gpu0 -> node0.nvswitch is the busiest, 1% busy against its tier's mean 0%"));
  // Just under the threshold: still lightly used.
  CHECK_THAT(describe_bottleneck(step_with_links(0.49, 0.1)), !Catch::Contains("hot spot"));
}

TEST_CASE("a materially busy link far above its tier's mean is a hot spot", "[report][bottleneck]") {
  const std::string verdict = describe_bottleneck(step_with_links(0.6, 0.2));
  CHECK_THAT(verdict, Catch::Contains("gpu\u2192nvswitch links are up to 60% busy (mean 20%)"));
  CHECK_THAT(verdict,
             Catch::Contains("node0.gpu0 -> node0.nvswitch is a hot spot, 60% busy against its tier's mean 20%"));
  CHECK_THAT(verdict, !Catch::Contains("lightly"));
  // Busy, but no busier than the rest of its tier: busy links, no hot spot.
  CHECK_THAT(describe_bottleneck(step_with_links(0.6, 0.55)), !Catch::Contains("hot spot"));
}

namespace {

TierReport tier_of(const char* name, double busy) {
  TierReport t;
  t.name = name;
  t.links = 8;
  t.busy_links = 8;
  t.mean_utilisation = t.max_utilisation = busy;
  t.mean_bandwidth_utilisation = t.max_bandwidth_utilisation = busy;
  return t;
}

// A DGX cluster's step: 55 % compute, 40 % exposed data-parallel all-reduce.
// NVLink (tensor parallelism, hidden) is the busiest tier, the NICs and
// leaves less busy: as simctl ran a DGX H100 cluster over HDR, 2:1.
StepReport step_with_exposed_data_parallel(bool across_nodes) {
  StepReport r;
  r.mean.step = 100'000'000;
  r.mean[Category::compute_bound] = 55'000'000;
  r.mean[comm_category(CommDimension::data)] = 40'000'000;
  r.mean[Category::waiting] = 5'000'000;
  r.tiers = {tier_of("gpu->nvswitch", 0.25), tier_of("pcie_switch->nic", 0.19), tier_of("nic->leaf", 0.19),
             tier_of("leaf->spine", 0.09)};
  CollectiveReport dp;
  dp.usage.kind.dimension = CommDimension::data;
  dp.usage.kind.across_nodes = across_nodes;
  dp.usage.time = 30'000'000;
  CollectiveReport tp;
  tp.usage.kind.dimension = CommDimension::tensor;
  tp.usage.time = 60'000'000;
  r.collectives = {dp, tp};
  return r;
}

}  // namespace

// The verdict had named the busiest tier (NVLink, "lightly used") while the
// exposed traffic waited on InfiniBand.
TEST_CASE("the verdict names the tier that carries the exposed traffic", "[report][bottleneck]") {
  const std::string across = describe_bottleneck(step_with_exposed_data_parallel(true));
  CHECK_THAT(across, Catch::Contains("also 40% exposed communication"));
  CHECK_THAT(across, Catch::Contains("the exposed data-parallel traffic crosses nic\u2192leaf links, lightly used: "
                                     "up to 19% busy"));
  CHECK_THAT(across, !Catch::Contains("nvswitch"));
  // The same traffic inside one node crosses NVLink.
  const std::string inside = describe_bottleneck(step_with_exposed_data_parallel(false));
  CHECK_THAT(inside, Catch::Contains("the exposed data-parallel traffic crosses gpu\u2192nvswitch links"));
  // Exposed communication under a tenth of the step: the busiest tier, as before.
  StepReport quiet = step_with_exposed_data_parallel(true);
  quiet.mean[Category::compute_bound] = 90'000'000;
  quiet.mean[comm_category(CommDimension::data)] = 5'000'000;
  CHECK_THAT(describe_bottleneck(quiet), Catch::EndsWith("gpu\u2192nvswitch links are lightly used, up to 25% busy "
                                                         "(mean 25%)"));
}

// A communication-bound step's "inter-node" follows where its collectives ran.
TEST_CASE("a communication-bound verdict says inter-node when the top dimension's groups span nodes",
          "[report][bottleneck]") {
  StepReport r = step_with_exposed_data_parallel(true);
  r.mean[Category::compute_bound] = 30'000'000;
  r.mean[comm_category(CommDimension::data)] = 65'000'000;
  CHECK_THAT(describe_bottleneck(r), Catch::StartsWith("communication-bound: 65% of the step is exposed communication, "
                                                       "100% of it inter-node data-parallel"));
  r.collectives[0].usage.kind.across_nodes = false;
  CHECK_THAT(describe_bottleneck(r), Catch::Contains("100% of it data-parallel"));
}
