// The report's per-kind collective table: what algorithm and protocol each
// kind of collective ran with, on real runs, with and without a run
// config's `collectives:` pins and SHARP, and that its sums match the trace.
#include <catch2/catch.hpp>
#include <map>
#include <tuple>

#include "sim/exec/executor.hpp"
#include "sim/report/render.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/report/report_outputs.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace {

struct Run {
  Scenario scenario;
  ExecutionResult result;
  StepReport report;
};

Run run_config(const std::string& relative) {
  Run run{load_scenario(source_path(relative)), {}, {}};
  const Scenario& s = run.scenario;
  Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  run.result = executor.run();
  run.report = build_step_report(s.trace, run.result, s.system, s.catalogue, s.labels, {s.costs, s.rank_memory});
  return run;
}

using OpKey = std::tuple<std::string, std::string, std::uint32_t>;  // op, dimension, ranks per group

struct Totals {
  std::uint64_t ops = 0;  // members' ops
  double bytes = 0.0;     // summed over members' ops
};

// Every rank's collective ops that move bytes, by kind.
std::map<OpKey, Totals> trace_totals(const Trace& trace) {
  std::map<OpKey, Totals> out;
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    for (const Op& op : trace.ops(r)) {
      const auto* call = std::get_if<CollectiveCall>(&op.work);
      if (!call || !(call->bytes > 0)) continue;
      const auto ranks = static_cast<std::uint32_t>(trace.groups.at(trace.group(r, *call)).size());
      if (ranks <= 1) continue;
      Totals& t = out[{std::string(to_string(call->op)), std::string(to_string(call->dimension)), ranks}];
      ++t.ops;
      t.bytes += call->bytes;
    }
  }
  return out;
}

// The JSON table's rows, summed over algorithm and protocol, scaled to members' ops.
std::map<OpKey, Totals> table_totals(const nlohmann::json& table) {
  std::map<OpKey, Totals> out;
  for (const auto& row : table) {
    const auto ranks = row["ranks"].get<std::uint32_t>();
    Totals& t = out[{row["op"].get<std::string>(), row["dimension"].get<std::string>(), ranks}];
    t.ops += row["calls"].get<std::uint64_t>() * ranks;
    t.bytes += row["bytes"].get<double>() * ranks;
  }
  return out;
}

// The algorithms a run's collectives of `op` in `dimension` ran with, by bytes moved.
std::map<std::string, double> bytes_by_algorithm(const StepReport& report, CollectiveOp op, CommDimension dimension) {
  std::map<std::string, double> out;
  for (const CollectiveReport& c : report.collectives) {
    if (c.usage.kind.op == op && c.usage.kind.dimension == dimension) {
      out[std::string(to_string(c.usage.kind.algorithm))] += c.usage.bytes;
    }
  }
  return out;
}

const std::string kExample = "configs/dgx_h100_x8.yaml";
const std::string kRing = "tests/report/configs/dgx_h100_x8_ring.yaml";
const std::string kSharp = "configs/dgx_h100x4_gpt1p3b_ddp_sharp.yaml";

}  // namespace

TEST_CASE("the JSON collectives table counts every collective of the trace once per group call",
          "[report][collectives]") {
  const std::string config = GENERATE(as<std::string>{}, kExample, "tests/report/configs/pp_4node.yaml",
                                      "configs/dgx_h100x4_mixtral_8x7b_ep8.yaml");
  INFO(config);
  const Run run = run_config(config);
  const nlohmann::json table = render_json(run.report)["collectives"];
  REQUIRE(table.is_array());
  REQUIRE_FALSE(table.empty());
  const auto expected = trace_totals(run.scenario.trace);
  const auto reported = table_totals(table);
  REQUIRE(reported.size() == expected.size());
  for (const auto& [key, totals] : expected) {
    INFO(std::get<0>(key) << " " << std::get<1>(key) << " x" << std::get<2>(key));
    REQUIRE(reported.count(key) == 1);
    CHECK(reported.at(key).ops == totals.ops);
    CHECK(reported.at(key).bytes == Approx(totals.bytes).epsilon(1e-9));
  }
  for (const auto& row : table) {
    CHECK(row["time_ms"].get<double>() > 0);
    const double algbw = row["bytes"].get<double>() / (row["time_ms"].get<double>() / 1e3) / 1e9;
    CHECK(row["algbw_GBps"].get<double>() == Approx(algbw));
    CHECK(row["busbw_GBps"].get<double>() >= row["algbw_GBps"].get<double>() * 0.5);
  }
}

TEST_CASE("the default DGX H100 run reports the tuner's NVLS for its large DP all-reduces, a pinned ring for all",
          "[report][collectives]") {
  const Run automatic = run_config(kExample);
  const Run ring = run_config(kRing);
  const auto chosen = bytes_by_algorithm(automatic.report, CollectiveOp::all_reduce, CommDimension::data);
  REQUIRE_FALSE(chosen.empty());
  const auto most =
      std::max_element(chosen.begin(), chosen.end(), [](const auto& a, const auto& b) { return a.second < b.second; });
  CHECK(most->first == "nvls");  // NVSwitch reduction wins at 25 MiB buckets on NVLink4

  const auto pinned = bytes_by_algorithm(ring.report, CollectiveOp::all_reduce, CommDimension::data);
  REQUIRE(pinned.size() == 1);
  CHECK(pinned.begin()->first == "ring");
  // The last, 214 MB bucket is exposed: NVLS, moving about one buffer
  // through each port where the ring moves 2(n-1)/n, finishes it sooner.
  CHECK(ring.report.mean[Category::comm_data] > automatic.report.mean[Category::comm_data]);
  CHECK(ring.report.step_time > automatic.report.step_time);

  const std::string text = render_text(automatic.report);
  CHECK_THAT(text, Catch::Contains("Collectives") && Catch::Contains("busbw [GB/s]") && Catch::Contains("DP x8") &&
                       Catch::Contains("nvls/Simple"));
  CHECK_THAT(render_text(ring.report), Catch::Contains("ring/"));
}

TEST_CASE("the shipped SHARP config runs every DP all-reduce across its four NDR nodes in the switches",
          "[report][collectives]") {
  const Run run = run_config(kSharp);
  REQUIRE(run.scenario.collectives.sharp);
  REQUIRE_FALSE(run.report.collectives.empty());
  for (const CollectiveReport& c : run.report.collectives) {
    CHECK(c.usage.kind.algorithm == CollectiveAlgorithm::sharp);
    CHECK(c.usage.kind.ranks == 32);
  }
  CHECK_THAT(render_text(run.report), Catch::Contains("DP x32") && Catch::Contains("sharp/Simple"));
}
