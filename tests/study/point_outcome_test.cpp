#include "sim/study/point_outcome.hpp"

#include <catch2/catch.hpp>

#include "models/devices/cost_defaults.hpp"
#include "models/devices/device_catalogue.hpp"

using namespace simctl;

namespace {

ConfigOverride override_at(std::string path, std::string value) {
  return ConfigOverride{std::move(path), std::move(value), SourceLocation{"study.yaml", 3, 7}};
}

const std::string kConfig = "configs/dgx_a100x8_megatron_22b.yaml";

}  // namespace

TEST_CASE("a point without overrides is the run itself", "[study][point]") {
  const PointOutcome base = evaluate_point(kConfig, {});
  REQUIRE(base.status == PointStatus::ok);
  CHECK(base.metrics.gpus == 8);
  CHECK(base.metrics.step_time_ms > 500.0);
  CHECK(base.metrics.peak_memory_gib > 10.0);
  CHECK(base.metrics.pricing_source == "catalogue defaults");
  CHECK(base.metrics.cost_per_step > 0.0);
  CHECK(base.metrics.energy_per_step_j > 0.0);
}

TEST_CASE("overrides reach into the workload file the config names", "[study][point]") {
  const PointOutcome base = evaluate_point(kConfig, {});
  const PointOutcome full = evaluate_point(kConfig, {override_at("workload.activation_recompute", "full")});
  REQUIRE(full.status == PointStatus::ok);
  CHECK(full.metrics.step_time_ms > base.metrics.step_time_ms * 1.1);
  CHECK(full.metrics.peak_memory_gib < base.metrics.peak_memory_gib);
}

TEST_CASE("a point that cannot run says why, blamed on the override", "[study][point]") {
  const PointOutcome bad = evaluate_point(kConfig, {override_at("workload.parallel.tensor", "3")});
  CHECK(bad.status == PointStatus::invalid);
  CHECK_THAT(bad.reason, Catch::StartsWith("study.yaml:3:7"));
  const PointOutcome oom =
      evaluate_point(kConfig, {override_at("workload.activation_recompute", "none"),
                               override_at("workload.parallel.sequence", "false"),
                               override_at("workload.micro_batch", "16"), override_at("workload.global_batch", "16")});
  CHECK(oom.status == PointStatus::out_of_memory);
  CHECK_THAT(oom.reason, Catch::Contains("GiB"));
  CHECK(oom.metrics.min_headroom_gib < 0.0);
}

TEST_CASE("every cost default names a GPU of the catalogue", "[study][costs]") {
  const CostDefaults defaults = CostDefaults::load();
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  CHECK(defaults.gpu_hour_price.size() >= 3);
  for (const auto& [gpu, price] : defaults.gpu_hour_price) {
    INFO(gpu);
    CHECK_NOTHROW(catalogue.gpu(gpu));
    CHECK(price > 0.0);
  }
  for (const auto& [gpu, watts] : defaults.host_watts_per_gpu) {
    INFO(gpu);
    CHECK_NOTHROW(catalogue.gpu(gpu));
  }
  CHECK(defaults.pue >= 1.0);
}

// A sweep over GPU models shows cost and energy for every point only if every
// part of the catalogue has both defaults.
TEST_CASE("every GPU of the catalogue has a default price and host power", "[study][costs]") {
  const CostDefaults defaults = CostDefaults::load();
  for (const std::string& gpu : DeviceCatalogue::load().gpu_ids()) {
    INFO(gpu);
    CHECK(defaults.gpu_hour_price.count(gpu) == 1);
    CHECK(defaults.host_watts_per_gpu.count(gpu) == 1);
  }
}

// Energy follows the replay: a GPU draws its TDP only while it computes, so
// the same job with its NVLink slowed 50-fold (communication-bound) draws
// less power per GPU than on the real machine (compute-bound).
TEST_CASE("a communication-bound plan draws less power than a compute-bound one", "[study][costs]") {
  const PointOutcome fast = evaluate_point(kConfig, {});
  const PointOutcome slow =
      evaluate_point(kConfig, {override_at("system.node_templates.dgx_a100.links[0].bandwidth", "6 GB/s")});
  REQUIRE(fast.status == PointStatus::ok);
  REQUIRE(slow.status == PointStatus::ok);
  const auto compute_share = [](const PointMetrics& m) {
    double compute = 0.0;
    for (Category c : kAllCategories) compute += is_compute(c) ? m.breakdown_ms[static_cast<std::size_t>(c)] : 0.0;
    return compute / m.step_time_ms;
  };
  CHECK(compute_share(fast.metrics) > 0.7);
  CHECK(compute_share(slow.metrics) < 0.5);
  CHECK(slow.metrics.average_power_w < 0.8 * fast.metrics.average_power_w);
  // Energy is power times time: the slow step still costs more energy.
  CHECK(slow.metrics.energy_per_step_j > fast.metrics.energy_per_step_j);
}

// A variant is priced and powered as the catalogue part it changes, and is
// reachable by a sweep axis like any field.
TEST_CASE("a GPU variant takes its catalogue part's price, and its clock shows in the step",
          "[study][costs][variant]") {
  const PointOutcome base = evaluate_point(kConfig, {});
  const PointOutcome slow = evaluate_point(kConfig, {override_at("system.node_templates.dgx_a100.parts.gpu.variant",
                                                                 "{name: a100-slow, clock_scale: 0.8}")});
  REQUIRE(slow.status == PointStatus::ok);
  CHECK(slow.metrics.pricing_source == "catalogue defaults");
  CHECK(slow.metrics.step_time_ms > base.metrics.step_time_ms * 1.1);
  CHECK(slow.metrics.cost_per_step / slow.metrics.step_time_ms ==
        Approx(base.metrics.cost_per_step / base.metrics.step_time_ms));
}
