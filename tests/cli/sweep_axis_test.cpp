// `simctl sweep RUN.yaml --axis FIELD=VALUES`: the study written on the
// command line gives the points a study file with the same axes gives, its
// shards merge, and every bad --axis is refused naming it.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "tests/cli/option_refusal.hpp"
#include "tests/cli/run_binary.hpp"
#include "tests/study/study_test_files.hpp"  // study_temp_dir

using simctl::testing::check_refusals;
using simctl::testing::read_text;
using simctl::testing::run_simctl;
using simctl::testing::study_temp_dir;
using simctl::testing::write_temp_config;

namespace {

const std::string kSweptConfig = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_h100_x8.yaml";
const std::string kTwoAxes =
    " --axis 'workload.micro_batch=[2, 8]' --axis 'workload.activation_recompute=[none, full]'";

nlohmann::json points_of(const std::string& json_file) { return nlohmann::json::parse(read_text(json_file))["points"]; }

}  // namespace

TEST_CASE("sweep --axis gives the points of a study file with those axes", "[cli][sweep][axis]") {
  const auto dir = study_temp_dir() / "cli_axis";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto out = [&](const std::string& name) { return (dir / name).string(); };
  const std::string study =
      write_temp_config("cli_axis_twin.yaml", "study: twin\nbase: " + kSweptConfig +
                                                  "\naxes:\n"
                                                  "  - {field: workload.micro_batch, values: [2, 8]}\n"
                                                  "  - {field: workload.activation_recompute, values: [none, full]}\n");
  const auto file = run_simctl("sweep " + study + " --jobs 1 --json " + out("file.json"));
  const auto axes = run_simctl("sweep " + kSweptConfig + kTwoAxes + " --jobs 1 --json " + out("axes.json"));
  INFO(axes.err);
  REQUIRE(file.exit_code == 0);
  REQUIRE(axes.exit_code == 0);
  CHECK_THAT(axes.out, Catch::Contains("dgx_h100_x8.yaml over workload.micro_batch x workload.activation_recompute: "
                                       "4 points"));
  const nlohmann::json twin = points_of(out("file.json")), written = points_of(out("axes.json"));
  REQUIRE(written.size() == 4);
  CHECK(written == twin);
  CHECK(written[0]["step_time_ms"] != written[3]["step_time_ms"]);  // the axes reach the runs

  for (const char* shard : {"1/2", "2/2"}) {
    const auto r =
        run_simctl("sweep " + kSweptConfig + kTwoAxes + " --jobs 1 --shard " + shard + " --out " + out("shards"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
  }
  const auto merged = run_simctl("sweep merge " + out("shards") + " --json " + out("merged.json"));
  INFO(merged.err);
  REQUIRE(merged.exit_code == 0);
  CHECK(points_of(out("merged.json")) == written);
}

TEST_CASE("a bad --axis is refused naming it, before any point runs", "[cli][sweep][axis][bad-input]") {
  check_refusals("sweep " + kSweptConfig, "--axis",
                 {{"workload.micro_batch", "expected FIELD=VALUES"},
                  {"=[1]", "expected FIELD=VALUES"},
                  {"workload.micro_batch=4", "field 'workload.micro_batch': expected a non-empty YAML list"},
                  {"workload.micro_batch=[]", "expected a non-empty YAML list"},
                  {"workload.micro_batch=[two]", "expected an integer, got 'two'"},
                  {"workload.paralel.tensor=[1]", "'paralel' is not a field of `workload`; valid fields are task"},
                  {"system.nodes[0].count=[1 GiB]", "expected an integer, got '1 GiB'"}});
  const auto twice =
      run_simctl("sweep " + kSweptConfig + " --axis 'workload.micro_batch=[1]' --axis 'workload.micro_batch=[2]'");
  CHECK(twice.exit_code == 2);
  CHECK_THAT(twice.err, Catch::Contains("varied by two --axis options"));
  const auto study_file =
      run_simctl("sweep " + std::string(SIMCTL_SOURCE_DIR) +
                 "/configs/studies/fabric_ndr_hdr_oversubscribed.yaml --axis 'workload.micro_batch=[1]'");
  CHECK(study_file.exit_code == 2);
  CHECK_THAT(study_file.err, Catch::Contains("is a study file with axes of its own"));
  const auto no_axes = run_simctl("sweep " + kSweptConfig);
  CHECK(no_axes.exit_code == 2);
  CHECK_THAT(no_axes.err, Catch::Contains("is a run config, not a study: give its axes"));
}
