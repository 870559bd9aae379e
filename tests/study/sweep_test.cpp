#include <catch2/catch.hpp>
#include <sstream>

#include "sim/study/study_points.hpp"
#include "sim/study/sweep_outputs.hpp"
#include "sim/study/sweep_rows.hpp"
#include "sim/study/sweep_shards.hpp"
#include "tests/study/study_test_files.hpp"

using namespace simctl;
using simctl::testing::kTinyAxes;
using simctl::testing::study_temp_dir;
using simctl::testing::write_study;

namespace {

std::vector<std::uint64_t> all_points(const Study& s) { return shard_points(point_count(s), 1, 1); }

const Study& tiny_study() {
  static const Study study = load_study(write_study("tiny.yaml", std::string("objective: step_time\n") + kTinyAxes));
  return study;
}

const std::vector<PointRow>& tiny_rows() {
  static const std::vector<PointRow> rows = run_points(tiny_study(), all_points(tiny_study()), 1);
  return rows;
}

}  // namespace

TEST_CASE("a tiny study runs every point, reporting those that cannot run", "[study][sweep]") {
  const auto& rows = tiny_rows();
  REQUIRE(rows.size() == 8);
  // Points 0-3 selective recompute, 4-7 full; micro-batches 1, 2, 3, 16.
  for (std::uint64_t p = 0; p < 8; ++p) CHECK(rows[p].point == p);
  CHECK(rows[0].outcome.status == PointStatus::ok);
  CHECK(rows[1].outcome.status == PointStatus::ok);
  CHECK(rows[2].outcome.status == PointStatus::invalid);
  CHECK(rows[6].outcome.status == PointStatus::invalid);
  CHECK_THAT(rows[2].outcome.reason, Catch::Contains("tiny.yaml:8:"));  // blamed on the zipped global batch 4
  CHECK(rows[3].outcome.status == PointStatus::out_of_memory);
  CHECK(rows[3].outcome.metrics.min_headroom_gib < 0.0);
  CHECK(rows[5].outcome.status == PointStatus::ok);
  // Full recompute re-runs the forward: slower than selective at the same micro-batch.
  CHECK(rows[4].outcome.metrics.step_time_ms > rows[0].outcome.metrics.step_time_ms);
}

TEST_CASE("the table sorts the points that ran by the objective and lists the others after", "[study][sweep]") {
  const std::string table = sweep_table(tiny_study(), tiny_rows(), 0);
  std::vector<std::pair<double, std::uint64_t>> ran;
  for (const PointRow& r : tiny_rows()) {
    if (r.outcome.status == PointStatus::ok) ran.emplace_back(r.outcome.metrics.step_time_ms, r.point);
  }
  std::sort(ran.begin(), ran.end());
  // The rank and point number that start each line of the table.
  std::istringstream lines(table.substr(table.find("bottleneck")));
  std::string line;
  std::getline(lines, line);
  for (std::size_t i = 0; i < ran.size(); ++i) {
    REQUIRE(std::getline(lines, line));
    std::istringstream cells(line);
    std::size_t rank = 0;
    std::uint64_t point = 0;
    cells >> rank >> point;
    INFO(line);
    CHECK(rank == i + 1);
    CHECK(point == ran[i].second);
  }
  const std::size_t at = table.find("\n" + std::to_string(ran.size()) + "  ");
  CHECK(table.find("not run:") > at);
  CHECK_THAT(table, Catch::Contains("point 2 (workload.activation_recompute=selective, workload.micro_batch=3, "
                                    "workload.global_batch=4): invalid:"));
  CHECK_THAT(table, Catch::Contains("point 3 (") && Catch::Contains("out_of_memory: out of memory"));
  CHECK_THAT(table, Catch::Contains("8 points: " + std::to_string(ran.size()) + " ran, 2 invalid, "));
}

TEST_CASE("the JSON and CSV hold every point with units in their names, nulls where a figure is missing",
          "[study][sweep]") {
  const auto json = sweep_json(tiny_study(), tiny_rows());
  CHECK(json["study"] == "test study");
  CHECK(json["objective"] == "step_time");
  CHECK(json["axes"][2]["field"] == "workload.global_batch");
  CHECK(json["axes"][2]["values"][3] == "16");
  REQUIRE(json["points"].size() == 8);
  const auto& ok = json["points"][0];
  CHECK(ok["axes"]["workload.micro_batch"] == "1");
  CHECK(ok["status"] == "ok");
  CHECK(ok["reason"].is_null());
  CHECK(ok["step_time_ms"].get<double>() > 0.0);
  CHECK(ok["breakdown_ms"]["compute_bound"].get<double>() > 0.0);
  CHECK(ok["cost_per_million_tokens"].get<double>() > 0.0);
  CHECK(ok["energy_per_million_tokens_kwh"].get<double>() > 0.0);
  const auto& invalid = json["points"][2];
  CHECK(invalid["status"] == "invalid");
  CHECK(invalid["step_time_ms"].is_null());
  CHECK(invalid["peak_memory_gib"].is_null());
  const auto& oom = json["points"][3];
  CHECK(oom["step_time_ms"].is_null());
  CHECK(oom["min_headroom_gib"].get<double>() < 0.0);
  const std::string csv = sweep_csv(tiny_study(), tiny_rows());
  CHECK_THAT(csv, Catch::StartsWith("point,workload.activation_recompute,workload.micro_batch,workload.global_batch,"
                                    "status,reason,gpus,nodes,step_time_ms,"));
  CHECK_THAT(csv, Catch::Contains(",compute_bound_ms,") && Catch::Contains(",energy_per_million_tokens_kwh,"));
  CHECK(std::count(csv.begin(), csv.end(), '\n') == 9);
}

TEST_CASE("two threads give the same rows as one, byte for byte", "[study][sweep]") {
  const auto two = run_points(tiny_study(), all_points(tiny_study()), 2);
  CHECK(sweep_json(tiny_study(), two).dump(2) == sweep_json(tiny_study(), tiny_rows()).dump(2));
  CHECK(sweep_csv(tiny_study(), two) == sweep_csv(tiny_study(), tiny_rows()));
}

TEST_CASE("rows survive the JSON round trip exactly", "[study][sweep]") {
  for (const PointRow& row : tiny_rows()) CHECK(row_to_json(row_from_json(row_to_json(row))) == row_to_json(row));
}

TEST_CASE("shards merged give the serial rows, a missing or foreign shard is refused", "[study][sweep][shard]") {
  const Study& s = tiny_study();
  const auto dir = study_temp_dir() / "shards";
  std::filesystem::remove_all(dir);
  for (std::uint64_t shard : {1, 2, 3}) write_shard(dir, s, shard, 3, run_points(s, shard_points(8, shard, 3), 1));
  const MergedSweep merged = merge_shards(dir);
  CHECK(merged.study.title == s.title);
  CHECK(sweep_csv(merged.study, merged.rows) == sweep_csv(s, tiny_rows()));
  CHECK(sweep_json(merged.study, merged.rows).dump(2) == sweep_json(s, tiny_rows()).dump(2));

  std::filesystem::remove(shard_file(dir, 2, 3));
  CHECK_THROWS_WITH(merge_shards(dir), Catch::Contains("shard(s) 2 of 3 not here"));

  const Study other = load_study(write_study("other.yaml", std::string("objective: mfu\n") + kTinyAxes));
  write_shard(dir, other, 2, 3, run_points(other, shard_points(8, 2, 3), 1));
  CHECK_THROWS_WITH(merge_shards(dir), Catch::Contains("comes from another study"));

  std::filesystem::remove_all(dir);
  CHECK_THROWS_WITH(merge_shards(dir), Catch::Contains("no shard-*.json files"));
}

// The buyer's question across generations and vendors: every GPU of the
// shipped study (NVIDIA Hopper and Blackwell, AMD CDNA3 and CDNA4) gets a
// step time, a cost and an energy from the catalogue's defaults.
TEST_CASE("a sweep over seven accelerator generations prices and powers every point", "[study][sweep][costs]") {
  const Study study = load_study("configs/studies/gpu_generations.yaml");
  const std::vector<PointRow> rows = run_points(study, all_points(study), 2);
  REQUIRE(rows.size() == 7);
  for (const PointRow& r : rows) {
    INFO("point " << r.point << ": " << r.outcome.reason);
    REQUIRE(r.outcome.status == PointStatus::ok);
    CHECK(r.outcome.metrics.step_time_ms > 0.0);
    CHECK(r.outcome.metrics.pricing_source == "catalogue defaults");
    CHECK(r.outcome.metrics.cost_per_step > 0.0);
    CHECK(r.outcome.metrics.energy_per_step_j > 0.0);
  }
  // Blackwell and CDNA4 outrun Hopper at the same job.
  CHECK(rows[2].outcome.metrics.step_time_ms < rows[0].outcome.metrics.step_time_ms / 2.0);
  CHECK(rows[5].outcome.metrics.step_time_ms < rows[4].outcome.metrics.step_time_ms / 1.5);
}
