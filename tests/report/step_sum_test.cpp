// On a real 32-rank pipeline run, every rank's breakdown partitions the step:
// exactly in the library, and within 0.1 % in the --json and --csv outputs.
#include <catch2/catch.hpp>

#include "sim/exec/executor.hpp"
#include "sim/report/step_report.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/report/report_outputs.hpp"

using nlohmann::json;
using namespace simctl;
using namespace simctl::testing;

namespace {
const std::string kPipeline = "tests/report/configs/pp_4node.yaml";
}

TEST_CASE("each rank's categories add up to the step exactly on the pipeline run", "[report][breakdown]") {
  const Scenario scenario = load_scenario(source_path(kPipeline));
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning);
  const ExecutionResult result = executor.run();
  const StepReport report = build_step_report(scenario.trace, result, scenario.system, scenario.catalogue,
                                              scenario.labels, {scenario.costs, scenario.rank_memory});
  REQUIRE(report.per_rank.size() == scenario.trace.ranks.size());
  REQUIRE(report.per_rank.size() == 32);
  TimePs bubble = 0;
  for (std::size_t r = 0; r < report.per_rank.size(); ++r) {
    const TimeBreakdown& b = report.per_rank[r];
    INFO("rank " << r);
    CHECK(b.step == result.step_time);
    CHECK(b.sum() == b.step);
    CHECK(b.compute() + b.exposed_communication() + b.exposed_copy() + b.idle() == b.step);
    for (Category c : kAllCategories) CHECK(b[c] >= 0);
    CHECK(b.overlapped_communication >= 0);
    bubble += b[Category::pipeline_bubble];
  }
  CHECK(bubble > 0);  // a pipeline has a bubble, so the run exercises that category
  CHECK(report.mean.sum() == report.step_time);
}

TEST_CASE("the --json and --csv per-rank breakdowns sum to the step within 0.1 %", "[report][breakdown]") {
  const RunFiles run = run_with_outputs("step_sum_pp", kPipeline);
  const double step = run.report.at("step_time_ms");
  REQUIRE(step > 0.0);
  const json& ranks = run.report.at("per_rank");
  REQUIRE(ranks.size() == run.report.at("gpus").get<std::size_t>());
  for (const json& rank : ranks) {
    INFO("rank " << rank.at("rank"));
    CHECK(rank.at("step_ms").get<double>() == Approx(step).epsilon(1e-9));
    double categories = 0.0;
    for (const auto& [name, ms] : rank.at("categories_ms").items()) {
      CHECK(ms.get<double>() >= 0.0);
      categories += ms.get<double>();
    }
    CHECK(categories == Approx(step).epsilon(0.001));
    const double groups = rank.at("compute_ms").get<double>() + rank.at("exposed_communication_ms").get<double>() +
                          rank.at("exposed_copy_ms").get<double>() + rank.at("idle_ms").get<double>();
    CHECK(groups == Approx(step).epsilon(0.001));
    double dimensions = 0.0;
    for (const auto& [name, ms] : rank.at("exposed_communication_by_dimension_ms").items()) {
      CHECK(ms.get<double>() == Approx(rank.at("categories_ms").at("comm_" + name).get<double>()).margin(1e-9));
      dimensions += ms.get<double>();
    }
    CHECK(dimensions == Approx(rank.at("exposed_communication_ms").get<double>()).margin(1e-6));
  }
  // ranks.csv: the same partition, column by column.
  const auto rows = read_csv(run.csv / "ranks.csv");
  REQUIRE(rows.size() == ranks.size());
  for (const CsvRow& row : rows) {
    INFO("ranks.csv rank " << row.at("rank"));
    double sum = 0.0;
    for (Category c : kAllCategories) sum += std::stod(row.at(std::string(to_string(c)) + "_ms"));
    CHECK(sum == Approx(std::stod(row.at("step_ms"))).epsilon(0.001));
    CHECK(std::stod(row.at("step_ms")) == Approx(step).epsilon(1e-6));
  }
}
