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
