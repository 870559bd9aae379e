// `simctl sweep` through the binary: threads, shards and merges give the
// same files byte for byte, and refused studies leave nothing written.
#include <catch2/catch.hpp>
#include <filesystem>

#include "tests/cli/run_binary.hpp"
#include "tests/study/study_test_files.hpp"

using simctl::testing::read_text;
using simctl::testing::run_simctl;
using simctl::testing::study_temp_dir;
using simctl::testing::write_study;

namespace {

std::string tiny_study() { return write_study("cli_tiny.yaml", simctl::testing::kTinyAxes); }

// What a sweep prints before the lines naming the files it wrote.
std::string table_part(const std::string& out) { return out.substr(0, out.find("\nwrote ")); }

}  // namespace

TEST_CASE("sweep writes the same files with one thread or two, and shards merge to them", "[cli][sweep]") {
  const std::string study = tiny_study();
  const auto dir = study_temp_dir() / "cli";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const auto out = [&](const std::string& name) { return (dir / name).string(); };

  const auto one = run_simctl("sweep " + study + " --jobs 1 --json " + out("1.json") + " --csv " + out("1.csv"));
  INFO(one.err);
  REQUIRE(one.exit_code == 0);
  CHECK_THAT(one.out, Catch::Contains("sorted by throughput") && Catch::Contains("samples/s") &&
                          Catch::Contains("8 points: ") && Catch::Contains("wrote " + out("1.csv")));
  const auto two = run_simctl("sweep " + study + " --jobs 2 --json " + out("2.json") + " --csv " + out("2.csv"));
  REQUIRE(two.exit_code == 0);
  CHECK(table_part(two.out) == table_part(one.out));
  CHECK(read_text(out("1.json")) == read_text(out("2.json")));
  CHECK(read_text(out("1.csv")) == read_text(out("2.csv")));

  for (const char* shard : {"1/2", "2/2"}) {
    const auto r = run_simctl("sweep " + study + " --jobs 1 --shard " + shard + " --out " + out("shards"));
    INFO(r.err);
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("(4 of 8 points)"));
  }
  const auto merged =
      run_simctl("sweep merge " + out("shards") + " --json " + out("m.json") + " --csv " + out("m.csv"));
  INFO(merged.err);
  REQUIRE(merged.exit_code == 0);
  CHECK(read_text(out("m.json")) == read_text(out("1.json")));
  CHECK(read_text(out("m.csv")) == read_text(out("1.csv")));

  std::filesystem::remove(dir / "shards" / "shard-0002-of-0002.json");
  const auto missing = run_simctl("sweep merge " + out("shards") + " --json " + out("x.json"));
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("shard(s) 2 of 2 not here"));
  CHECK_FALSE(std::filesystem::exists(dir / "x.json"));
}

TEST_CASE("sweep refuses bad studies and bad options before writing anything", "[cli][sweep][bad]") {
  const auto dir = study_temp_dir() / "cli_bad";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string json = (dir / "out.json").string();
  std::string values = "[";
  for (int i = 1; i <= 1001; ++i) values += std::to_string(i) + (i < 1001 ? ", " : "]");
  const std::string big =
      write_study("cli_big.yaml", "axes:\n  - {field: workload.micro_batch, values: " + values +
                                      "}\n  - {field: workload.global_batch, values: " + values + "}\n");
  const auto r = run_simctl("sweep " + big + " --json " + json);
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("cli_big.yaml:4:") && Catch::Contains("1,002,001 points") &&
                        Catch::Contains("pass --yes"));

  const std::string unit =
      write_study("cli_unit.yaml", "axes:\n  - {field: system.fabric.bandwidth, values: [400 Gb/s, 400 GB]}\n");
  const auto u = run_simctl("sweep " + unit + " --json " + json);
  CHECK(u.exit_code == 2);
  CHECK_THAT(u.err, Catch::Contains("cli_unit.yaml:4:") && Catch::Contains("400 GB"));

  const auto shard = run_simctl("sweep " + tiny_study() + " --shard 3/2 --out " + (dir / "s").string());
  CHECK(shard.exit_code == 2);
  CHECK_THAT(shard.err, Catch::Contains("I/N with 1 <= I <= N"));
  const auto no_out = run_simctl("sweep " + tiny_study() + " --shard 1/2");
  CHECK(no_out.exit_code == 2);
  CHECK_THAT(no_out.err, Catch::Contains("--shard needs --out"));
  CHECK(std::filesystem::is_empty(dir));
}
