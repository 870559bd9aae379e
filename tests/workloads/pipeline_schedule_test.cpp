#include "workloads/pipeline_schedule.hpp"

#include <catch2/catch.hpp>
#include <set>
#include <tuple>

using namespace simctl;

namespace {

std::string order(const std::vector<PipelineStep>& steps) {
  std::string s;
  for (const auto& st : steps) s += (st.forward ? "F" : "B") + std::to_string(st.micro) + " ";
  return s;
}

}  // namespace

TEST_CASE("GPipe runs every forward before any backward", "[workloads][pipeline]") {
  CHECK(order(stage_schedule(PipelineSchedule::gpipe, 4, 0, 3, 1)) == "F0 F1 F2 B0 B1 B2 ");
}

TEST_CASE("1F1B warms up with p - stage - 1 forwards", "[workloads][pipeline]") {
  CHECK(order(stage_schedule(PipelineSchedule::one_f_one_b, 4, 0, 6, 1)) == "F0 F1 F2 F3 B0 F4 B1 F5 B2 B3 B4 B5 ");
  CHECK(order(stage_schedule(PipelineSchedule::one_f_one_b, 4, 3, 3, 1)) == "F0 B0 F1 B1 F2 B2 ");
}

TEST_CASE("peak in-flight micro-batches: GPipe m, 1F1B p - stage", "[workloads][pipeline]") {
  for (std::int64_t stage = 0; stage < 4; ++stage) {
    CHECK(peak_in_flight(stage_schedule(PipelineSchedule::gpipe, 4, stage, 8, 1)) == 8);
    CHECK(peak_in_flight(stage_schedule(PipelineSchedule::one_f_one_b, 4, stage, 8, 1)) == 4 - stage);
  }
}

TEST_CASE("interleaved 1F1B visits every (micro-batch, chunk) once each way", "[workloads][pipeline]") {
  const auto steps = stage_schedule(PipelineSchedule::interleaved, 4, 1, 8, 2);
  REQUIRE(steps.size() == 2 * 8 * 2);
  std::set<std::tuple<bool, std::int64_t, std::int64_t>> seen;
  for (const auto& s : steps) seen.insert({s.forward, s.micro, s.chunk});
  CHECK(seen.size() == steps.size());
  // Megatron's first stage holds p * (1 + (p - 1) / (p * v)) layers' worth of
  // micro-batch activations: with p = 8, v = 3, 31 chunk passes of L/24 layers.
  CHECK(peak_in_flight(stage_schedule(PipelineSchedule::interleaved, 8, 0, 64, 3)) == 31);
}
