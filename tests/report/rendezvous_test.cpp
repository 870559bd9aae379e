// The executor records each meeting as it pairs the parties; the report
// trusts that record. On real runs it must agree with matching the same
// meetings from the timings alone, op by op.
#include "sim/report/rendezvous.hpp"

#include <catch2/catch.hpp>

#include "sim/exec/executor.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/report/report_outputs.hpp"

using namespace simctl;
using namespace simctl::testing;

TEST_CASE("recorded rendezvous match the ones derived from timings", "[report][rendezvous]") {
  const std::string config =
      GENERATE(as<std::string>{}, "configs/dgx_h100_x8_straggler.yaml", "configs/dgx_h100x4_pp4_interleaved.yaml",
               "configs/dgx_h100_x8_data_parallel.yaml", "configs/mixed_h100_a100_ddp.yaml");
  INFO(config);
  const Scenario scenario = load_scenario(source_path(config));
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning);
  const ExecutionResult result = executor.run();
  REQUIRE(result.meetings.size() == scenario.trace.ranks.size());
  const RendezvousTable recorded = match_rendezvous(scenario.trace, result);
  const RendezvousTable derived = rendezvous_from_timings(scenario.trace, result);
  std::size_t compared = 0, waited = 0;
  for (std::uint32_t r = 0; r < scenario.trace.ranks.size(); ++r) {
    for (OpIndex i : recorded.meeting_ops(r)) {
      const Rendezvous a = recorded.at(r, i), b = derived.at(r, i);
      INFO("rank " << r << " op " << i);
      REQUIRE(a.ready == b.ready);
      REQUIRE(a.last_arrival == b.last_arrival);
      ++compared;
      waited += a.last_arrival.rank != r ? 1 : 0;
    }
  }
  CHECK(compared > 0);
  CHECK(waited > 0);  // some rank waited on another, so the pairing was tested, not just each op's own start
}
