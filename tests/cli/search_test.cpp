// `simctl search` through the binary: the same output whatever the number of
// threads, and a --write-best config that `simctl run` replays to the
// winner's step time.
#include <yaml-cpp/yaml.h>

#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "tests/cli/run_binary.hpp"
#include "tests/study/search_configs.hpp"

using simctl::testing::read_text;
using simctl::testing::run_simctl;
using simctl::testing::write_temp_config;

TEST_CASE("search prints the same table and JSON on 1 and 2 threads", "[cli][search][determinism]") {
  const std::string config = simctl::testing::small_dense_config();
  const std::string json1 = write_temp_config("search1.json", ""), json2 = write_temp_config("search2.json", "");
  const auto one = run_simctl("search " + config + " --top 5 --jobs 1 --json " + json1);
  const auto two = run_simctl("search " + config + " --top 5 --jobs 2 --json " + json2);
  INFO(one.err);
  REQUIRE(one.exit_code == 0);
  REQUIRE(two.exit_code == 0);
  CHECK(one.out == two.out);
  CHECK(read_text(json1) == read_text(json2));
  CHECK_THAT(one.out, Catch::Contains("pruned for memory"));
  CHECK_THAT(one.out, Catch::Contains("your plan (*)"));
  CHECK_THAT(one.err, Catch::Contains("plans/s"));
  const auto report = nlohmann::json::parse(read_text(json1));
  CHECK(report.at("plans").size() >= 5);
  CHECK(report.at("plans")[0].at("rank") == 1);
  CHECK(report.at("counts").at("simulated") >= 5);
}

TEST_CASE("search --write-best writes a config that runs to the winner's step time", "[cli][search]") {
  const std::string config = simctl::testing::small_dense_config();
  const std::string json = write_temp_config("search.json", "");
  // In another folder than the base config, so its paths must be rebased.
  const auto best_dir = std::filesystem::temp_directory_path() / ("simctl_best_" + std::to_string(::getpid()));
  std::filesystem::create_directories(best_dir);
  const std::string best = (best_dir / "best.yaml").string();
  const auto search = run_simctl("search " + config + " --top 3 --json " + json + " --write-best " + best);
  INFO(search.err);
  REQUIRE(search.exit_code == 0);
  const double searched = nlohmann::json::parse(read_text(json)).at("plans")[0].at("step_time_ms");
  const std::string run_json = write_temp_config("best_run.json", "");
  const auto run = run_simctl("run " + best + " --json " + run_json);
  INFO(run.err << read_text(best));
  REQUIRE(run.exit_code == 0);
  const double replayed = nlohmann::json::parse(read_text(run_json)).at("step_time_ms");
  CHECK(replayed == Approx(searched).epsilon(1e-12));
  // The name describes the winner, not the base config's published plan.
  const auto written = YAML::LoadFile(best);
  const std::string name = written["name"].as<std::string>();
  const auto winner = nlohmann::json::parse(read_text(json)).at("plans")[0];
  CHECK_THAT(name, Catch::StartsWith("simctl search's best plan: tp=" + std::to_string(winner.at("tensor").get<int>()) +
                                     " pp=" + std::to_string(winner.at("pipeline").get<int>())));
  CHECK_THAT(name, !Catch::Contains(YAML::LoadFile(config)["name"].as<std::string>()));
}

TEST_CASE("search refuses --top 0 and a config it cannot plan", "[cli][search]") {
  const auto zero = run_simctl("search " + simctl::testing::small_dense_config() + " --top 0");
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("--top"));
  const std::string missing = run_simctl("search /nonexistent/config.yaml").err;
  CHECK_THAT(missing, Catch::Contains("nonexistent"));
}
