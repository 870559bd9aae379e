// The example every user starts from, run end to end through the binary.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/run_binary.hpp"

using simctl::testing::read_text;
using simctl::testing::run_simctl;

namespace {
const std::string kExample = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_h100_x8.yaml";
}

TEST_CASE("the DGX H100 example prints the report with units", "[cli][example]") {
  const auto result = run_simctl("run " + kExample);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("Step time"));
  CHECK_THAT(result.out, Catch::Contains(" ms"));
  CHECK_THAT(result.out, Catch::Contains("tokens/s"));
  CHECK_THAT(result.out, Catch::Contains("MFU"));
  CHECK_THAT(result.out, Catch::Contains("exposed communication"));
  CHECK_THAT(result.out, Catch::Contains("Bottleneck:"));
}

TEST_CASE("two runs print identical output", "[cli][determinism]") {
  const auto first = run_simctl("run " + kExample);
  const auto second = run_simctl("run " + kExample);
  REQUIRE(first.exit_code == 0);
  CHECK(first.out == second.out);
}

TEST_CASE("the JSON report is consistent with itself", "[cli][json]") {
  const std::string json_path = simctl::testing::write_temp_config("report.json", "");
  const auto result = run_simctl("run " + kExample + " --json " + json_path);
  REQUIRE(result.exit_code == 0);
  const auto report = nlohmann::json::parse(read_text(json_path));
  CHECK(report.at("schema_version") == 3);
  CHECK(report.at("gpus") == 8);
  const double step = report.at("step_time_ms");
  CHECK(step > 0.0);
  // The categories add up to the step on every rank, within 0.1 %.
  for (const auto& rank : report.at("per_rank")) {
    const double sum = rank.at("compute_ms").get<double>() + rank.at("exposed_communication_ms").get<double>() +
                       rank.at("exposed_copy_ms").get<double>() + rank.at("idle_ms").get<double>();
    CHECK(sum == Approx(step).epsilon(0.001));
  }
  // DDP of a 1.3B model on H100 runs at tens of percent MFU, not a few
  // percent and not near peak (see docs for the comparison with measured runs).
  const double mfu = report.at("mfu");
  CHECK(mfu > 0.25);
  CHECK(mfu < 0.70);
  CHECK(report.at("tokens_per_s").get<double>() > 0.0);
  CHECK_FALSE(report.at("bottleneck").get<std::string>().empty());
}
