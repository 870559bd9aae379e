// Peak memory against published runs (workloads/measured/memory_points.yaml):
// every point within its tolerance, the allocator margin fitted on the
// in-sample points only, the estimate never above what the run reserved,
// docs/accuracy.md's block as the points now estimate, and the file's bad
// input.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "accuracy_doc.hpp"
#include "sim/accuracy/memory_markdown.hpp"
#include "sim/config/config_error.hpp"
#include "tests/workloads/config_rejection.hpp"

using namespace simctl;
using namespace simctl::testing;

TEST_CASE("published peak memory is estimated within tolerance", "[accuracy][memory]") {
  const MemoryPoints points = load_memory_points(memory_points_path());
  REQUIRE(points.points.size() >= 2);
  int held_out = 0;
  for (const MemoryPoint& p : points.points) {
    const MemoryPointEstimate e = estimate_point(p, points.reserved_over_allocated);
    std::printf("%s: measured %.1f GiB, allocated %.1f GiB, reserved %.1f GiB (%+.1f %%)\n", p.id.c_str(),
                p.measured_gib, e.allocated_gib, e.reserved_gib, 100.0 * e.error);
    INFO(p.id);
    CHECK(std::abs(e.error) <= p.tolerance);
    // The run reserved what it measured: its live tensors were no more than
    // that, so an estimate above it would refuse a run that fitted.
    CHECK(e.allocated_gib <= p.measured_gib);
    if (!p.in_sample) ++held_out;
  }
  CHECK(held_out >= 1);
}

TEST_CASE("the allocator margin is the in-sample points' fit", "[accuracy][memory]") {
  const MemoryPoints points = load_memory_points(memory_points_path());
  // The file states it to three decimals.
  CHECK(points.reserved_over_allocated == Approx(fit_allocator_margin(points)).margin(0.0005));
  CHECK(points.reserved_over_allocated > 0.0);
}

TEST_CASE("docs/accuracy.md holds the peak-memory block as now estimated", "[accuracy][memory][docs]") {
  const std::string block = render_memory_block(load_memory_points(memory_points_path()));
  INFO(kRegenerate);
  CHECK(marked_block(read_data_file("docs/accuracy.md"), kMemoryAccuracyMarkers) == block);
}

namespace {

const std::string kPoint = R"(  - id: A
    gpu: H100
    measured_gib: 10
    sample: SAMPLE
    tolerance: 0.1
    source: "s"
    setup: "s"
    workload: {model: gpt-1.3b, parallel: {data: 8}, strategy: fsdp, micro_batch: 1}
)";

std::string memory_file(const std::string& fitted_on, const std::string& sample, const std::string& extra = "") {
  std::string point = kPoint;
  point.replace(point.find("SAMPLE"), 6, sample);
  return "allocator: {reserved_over_allocated: 0.1, fitted_on: [" + fitted_on + "]}\npoints:\n" + point + extra;
}

std::string rejection(const std::string& text) {
  const std::string path = write_test_config("simctl_memory_points", "points", text);
  try {
    load_memory_points(path);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("accepted:\n" << text);
  return {};
}

}  // namespace

TEST_CASE("bad memory point files are refused with the field", "[accuracy][memory][config]") {
  CHECK_THAT(rejection(memory_file("A", "out")),
             Catch::Contains("fitted_on") && Catch::Contains("held-out point (sample: out)"));
  CHECK_THAT(rejection(memory_file("", "in")), Catch::Contains("must name every sample: in point; A is missing"));
  CHECK_THAT(rejection(memory_file("B", "in")), Catch::Contains("names B, which is not a point"));
  std::string negative = memory_file("A", "in");
  negative.replace(negative.find("measured_gib: 10"), 16, "measured_gib: -1");
  CHECK_THAT(rejection(negative), Catch::Contains("measured_gib") && Catch::Contains("must be > 0"));
  std::string bad_workload = memory_file("A", "in");
  bad_workload.replace(bad_workload.find("strategy: fsdp"), 14, "strategy: fsdq");
  CHECK_THAT(rejection(bad_workload), Catch::Contains("workload.strategy"));
  CHECK_THAT(rejection(memory_file("A", "in", "    colour: red\n")), Catch::Contains("unknown field"));
}
