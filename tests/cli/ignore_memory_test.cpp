// `simctl run --ignore-memory`: a plan over its GPUs' memory is refused
// without it, and with it simulated and marked in the text and the JSON.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/run_binary.hpp"

using simctl::testing::read_text;
using simctl::testing::run_simctl;
using simctl::testing::write_temp_config;

namespace {

// GPT 1.3B with the full activations of 64 sequences of 2048 tokens per
// H100 (80 GiB): far over. `micro_batch` 1 fits.
std::string gpt_config(const char* name, int micro_batch) {
  return write_temp_config(name, "name: " + std::string(name) + "\nsystem: " + SIMCTL_SOURCE_DIR +
                                     "/configs/systems/dgx_h100.yaml\nworkload:\n  model: gpt-1.3b\n"
                                     "  parallel: {data: 2}\n  micro_batch: " +
                                     std::to_string(micro_batch) +
                                     "\n  global_batch: " + std::to_string(2 * micro_batch) + "\n");
}

struct RunWithJson {
  simctl::testing::CommandResult result;
  nlohmann::json report;
};

// `simctl run CONFIG --ignore-memory --json FILE`, which must succeed.
RunWithJson run_ignoring_memory(const std::string& config) {
  const std::string json_path = write_temp_config("report.json", "");
  RunWithJson run{run_simctl("run " + config + " --ignore-memory --json " + json_path), {}};
  INFO(run.result.err);
  REQUIRE(run.result.exit_code == 0);
  run.report = nlohmann::json::parse(read_text(json_path));
  return run;
}

}  // namespace

TEST_CASE("run refuses a plan that does not fit and names the way round", "[cli][memory]") {
  const auto r = run_simctl("run " + gpt_config("oom.yaml", 64));
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK_THAT(r.err, Catch::Contains("out of memory: stage 0 (rank 0) needs"));
  CHECK_THAT(r.err, Catch::Contains("--ignore-memory"));
}

TEST_CASE("run --ignore-memory simulates a plan that does not fit, clearly marked", "[cli][memory]") {
  const auto [r, report] = run_ignoring_memory(gpt_config("oom.yaml", 64));
  CHECK_THAT(r.out, Catch::StartsWith("WARNING: does not fit: rank 0 needs "));
  CHECK_THAT(r.out,
             Catch::Contains("but its GPU has 80.0 GiB (2 of 2 ranks over); simulated anyway (--ignore-memory)"));
  CHECK_THAT(r.out, Catch::Contains("Step time"));
  // The memory table's row: used, capacity, a negative headroom, then the marking.
  CHECK_THAT(r.out,
             Catch::Matches("[\\s\\S]*\n  ranks 0-1 +[0-9.]+ +80\\.0 +-[0-9.]+   OUT OF MEMORY: weights [\\s\\S]*"));
  CHECK(report.at("out_of_memory") == true);
  CHECK(report.at("memory").at(0).at("headroom_bytes").get<double>() < 0.0);
  CHECK(report.at("step_time_ms").get<double>() > 0.0);
}

TEST_CASE("a plan that fits carries no out-of-memory marking, with or without the flag", "[cli][memory]") {
  const auto [r, report] = run_ignoring_memory(gpt_config("fits.yaml", 1));
  CHECK_THAT(r.out, Catch::StartsWith("System"));
  CHECK_FALSE(r.out.find("OUT OF MEMORY") != std::string::npos);
  CHECK(report.at("out_of_memory") == false);
  CHECK(run_simctl("run " + gpt_config("fits.yaml", 1)).out == r.out);
}
