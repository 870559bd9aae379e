#include "sim/report/breakdown.hpp"

#include <catch2/catch.hpp>

#include "sim/report/critical_path.hpp"
#include "sim/report/intervals.hpp"
#include "tests/report/two_rank_step.hpp"

using namespace simctl;

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

TEST_CASE("a collective is ready when its last member arrives, a receive when its send is posted", "[report]") {
  const auto step = testing::two_rank_step();
  const RendezvousTable table = match_rendezvous(step.trace, step.result);
  CHECK(table.at(0, 2).ready == 35);
  CHECK(table.at(0, 2).last_arrival == OpRef{1, 0});
  CHECK(table.at(1, 0).ready == 35);
  CHECK(table.at(1, 1).ready == 80);
  CHECK(table.at(1, 1).last_arrival == OpRef{0, 5});
  CHECK(table.at(0, 0).ready == 0);  // compute: its own start
}

TEST_CASE("rank 0: compute hides communication, copies fill gaps, the pipeline tail is bubble", "[report]") {
  const auto step = testing::two_rank_step();
  const TimeBreakdown b = rank_breakdown(step.trace, step.result, match_rendezvous(step.trace, step.result), 0);
  CHECK(b[Category::compute_bound] == 40);
  CHECK(b[Category::compute_memory_bound] == 20);
  CHECK(b[Category::optimizer] == 10);
  CHECK(b[Category::comm_data] == 10);        // 40-50: the all-reduce with no compute above it
  CHECK(b[Category::comm_pipeline] == 0);     // the send runs under the optimizer
  CHECK(b[Category::host_copy] == 5);         // 75-80
  CHECK(b[Category::pipeline_bubble] == 10);  // 90-100: drain after its last op
  CHECK(b[Category::waiting] == 5);           // 70-75
  CHECK(b.overlapped_communication == 25);    // 35-40, 50-60 (all-reduce) and 80-90 (send)
  CHECK(b.sum() == b.step);
}

TEST_CASE("rank 1: waiting for a straggler is idle, waiting for a pipeline send is bubble", "[report]") {
  const auto step = testing::two_rank_step();
  const TimeBreakdown b = rank_breakdown(step.trace, step.result, match_rendezvous(step.trace, step.result), 1);
  CHECK(b[Category::waiting] == 35);  // nothing runs before it reaches the all-reduce
  CHECK(b[Category::comm_data] == 25);
  CHECK(b[Category::pipeline_bubble] == 20);  // receive posted at 60, send posted at 80
  CHECK(b[Category::comm_pipeline] == 10);
  CHECK(b[Category::compute_bound] == 10);
  CHECK(b.sum() == b.step);
}

TEST_CASE("kernels at the launch floor are launch-bound, not memory-bound, and the sum stays exact", "[report]") {
  auto step = testing::two_rank_step();
  const auto c = KernelBound::compute, m = KernelBound::memory, l = KernelBound::launch;
  step.result.timelines[0].bound =
      std::make_shared<std::vector<KernelBound>>(std::vector<KernelBound>{c, l, c, c, m, c});
  const TimeBreakdown b = rank_breakdown(step.trace, step.result, match_rendezvous(step.trace, step.result), 0);
  CHECK(b[Category::compute_bound] == 40);
  CHECK(b[Category::compute_launch_bound] == 20);  // 50-70, was memory-bound above
  CHECK(b[Category::compute_memory_bound] == 0);
  CHECK(b[Category::optimizer] == 10);  // the optimizer stays the optimizer, whatever bounds it
  CHECK(b.compute() == 70);
  CHECK(b.sum() == b.step);
}

TEST_CASE("mean breakdown keeps the sum exact", "[report]") {
  TimeBreakdown a, c;
  a.step = c.step = 13;
  a[Category::compute_bound] = 10;
  a[Category::comm_data] = 3;
  c[Category::compute_bound] = 11;
  c[Category::comm_tensor] = 1;
  c[Category::waiting] = 1;
  const TimeBreakdown m = mean_breakdown({a, c});
  CHECK(m.sum() == m.step);
  CHECK(m[Category::compute_bound] == 10);
}

TEST_CASE("the critical path runs back through the late pipeline send", "[report]") {
  const auto step = testing::two_rank_step();
  const CriticalPath path = critical_path(step.trace, step.result, match_rendezvous(step.trace, step.result));
  REQUIRE(path.ops.size() >= 3);
  CHECK(path.ops.back().op == OpRef{1, 2});
  CHECK(path.ops[path.ops.size() - 2].op == OpRef{1, 1});
  CHECK(path.ops[path.ops.size() - 2].start == 80);        // moving bytes, not waiting
  CHECK(path.ops[path.ops.size() - 3].op == OpRef{0, 3});  // the copy the send waited for
  TimePs covered = path.gaps;
  for (const PathOp& p : path.ops) covered += p.end - p.start;
  CHECK(covered == step.result.step_time);
}

TEST_CASE("a timeline with two ops of one stream overlapping is refused, not mis-summed", "[report]") {
  auto step = testing::two_rank_step();
  step.result.timelines[0].ops[1] = {30, 70};  // the memory-bound kernel now overlaps the first one (0-40)
  CHECK_THROWS_WITH(rank_breakdown(step.trace, step.result, match_rendezvous(step.trace, step.result), 0),
                    Catch::Contains("overlap"));
  CHECK_NOTHROW(rank_breakdown(step.trace, step.result, match_rendezvous(step.trace, step.result), 1));
}
