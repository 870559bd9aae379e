#include "sim/report/breakdown.hpp"

#include <catch2/catch.hpp>

#include "sim/report/intervals.hpp"

using namespace simctl;

namespace {

Op op_on(Stream stream) {
  Op op;
  op.stream = stream;
  op.work = ComputeWork{};
  return op;
}

}  // namespace

TEST_CASE("interval union and difference", "[report]") {
  auto merged = merge_intervals({{10, 20}, {0, 5}, {15, 30}, {30, 31}});
  REQUIRE(merged.size() == 2);
  CHECK(merged[0].start == 0);
  CHECK(merged[1].start == 10);
  CHECK(merged[1].end == 31);
  CHECK(total_length(merged) == 26);
  CHECK(length_outside({{0, 100}}, {{10, 20}, {50, 60}}) == 80);
  CHECK(length_outside({{10, 20}}, {{0, 100}}) == 0);
}

TEST_CASE("breakdown splits exposed and hidden communication and sums to the step", "[report]") {
  RankTrace trace;
  trace.ops = {op_on(Stream::compute), op_on(Stream::compute), op_on(Stream::communication), op_on(Stream::copy)};
  RankTimeline timeline;
  // compute 0-40 and 50-70; communication 30-60 (10 hidden at 30-40, 10 exposed
  // at 40-50, 10 hidden at 50-60); copy 75-80 exposed; idle 70-75 and 80-100.
  timeline.ops = {{0, 40, false}, {50, 70, true}, {30, 60, false}, {75, 80, false}};
  const TimeBreakdown b = rank_breakdown(trace, timeline, 100);
  CHECK(b.compute == 60);
  CHECK(b.compute_memory_bound == 20);
  CHECK(b.exposed_communication == 10);
  CHECK(b.overlapped_communication == 20);
  CHECK(b.exposed_copy == 5);
  CHECK(b.idle == 25);
  CHECK(b.compute + b.exposed_communication + b.exposed_copy + b.idle == b.step);
}

TEST_CASE("mean breakdown keeps the sum exact", "[report]") {
  TimeBreakdown a{10, 0, 3, 0, 0, 0, 13}, c{11, 0, 1, 0, 0, 1, 13};
  const TimeBreakdown m = mean_breakdown({a, c});
  CHECK(m.compute + m.exposed_communication + m.exposed_copy + m.idle == m.step);
}
