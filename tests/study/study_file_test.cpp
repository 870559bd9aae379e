#include "sim/study/study_file.hpp"

#include <catch2/catch.hpp>

#include "sim/study/study_points.hpp"
#include "tests/study/study_test_files.hpp"

using namespace simctl;
using simctl::testing::write_study;

namespace {

// The ConfigError message reading `body` gives, or "" when it loads.
std::string load_error(const std::string& body) {
  try {
    load_study(write_study("bad.yaml", body));
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

}  // namespace

TEST_CASE("a study file reads its title, base, objective and axes", "[study][file]") {
  const Study s =
      load_study(write_study("ok.yaml",
                             "description: two axes\nobjective: step_time\n"
                             "axes:\n"
                             "  - {field: workload.micro_batch, values: [1, 2]}\n"
                             "  - {field: \"system.nodes[0].count\", values: [1]}\n"
                             "  - field: workload.ddp\n    values:\n      - {overlap: true, bucket_size: 25 MiB}\n"));
  CHECK(s.title == "test study");
  CHECK(s.description == "two axes");
  CHECK(s.objective == StudyObjective::step_time);
  CHECK(s.base_path == simctl::testing::base_config());
  REQUIRE(s.groups.size() == 3);
  CHECK(s.groups[0].axes[0].field == "workload.micro_batch");
  CHECK(s.groups[0].axes[0].values[1].text == "2");
  CHECK(s.groups[0].axes[0].values[1].origin.line == 6);
  CHECK(s.groups[2].axes[0].values[0].text == "{overlap: true, bucket_size: 25 MiB}");
  CHECK(point_count(s) == 2);
}

TEST_CASE("axes make a product, the first slowest, a zip group moves together", "[study][points]") {
  const Study s = load_study(write_study("zip.yaml",
                                         "axes:\n"
                                         "  - {field: workload.micro_batch, values: [1, 2]}\n"
                                         "  - zip:\n"
                                         "      - {field: workload.parallel.tensor, values: [2, 4, 8]}\n"
                                         "      - {field: workload.parallel.data, values: [4, 2, 1]}\n"));
  REQUIRE(point_count(s) == 6);
  const auto texts = [&](std::uint64_t point) {
    std::string t;
    for (const ConfigOverride& o : point_overrides(s, point)) t += o.path + "=" + o.value_yaml + " ";
    return t;
  };
  CHECK(texts(0) == "workload.micro_batch=1 workload.parallel.tensor=2 workload.parallel.data=4 ");
  CHECK(texts(1) == "workload.micro_batch=1 workload.parallel.tensor=4 workload.parallel.data=2 ");
  CHECK(texts(3) == "workload.micro_batch=2 workload.parallel.tensor=2 workload.parallel.data=4 ");
  CHECK(texts(5) == "workload.micro_batch=2 workload.parallel.tensor=8 workload.parallel.data=1 ");
  CHECK(point_overrides(s, 4)[1].origin.line == 6);
}

TEST_CASE("field paths reach node templates, their parts and links, variants and lists", "[study][file]") {
  const std::vector<std::pair<std::string, std::string>> axes{
      {"system.node_templates.dgx.parts.gpu.model", "h100_sxm5_80gb"},
      {"system.node_templates.dgx.links[0].bandwidth", "400 Gb/s"},
      {"system.links[1].latency", "1 us"},
      {"system.fabric.oversubscription", "2"},
      {"workload.model.layers", "2"},
      {"workload.model", "gpt-1.3b"},
      {"workload.parallel.gpus[3]", "1"},
      {"stragglers[0].compute_speed", "0.5"},
      {"pricing", "{gpu_hour_price: 2}"}};
  for (const auto& [field, value] : axes) {
    INFO(field);
    CHECK(load_error("axes:\n  - {field: \"" + field + "\", values: [" + value + "]}\n") == "");
  }
}

TEST_CASE("an unknown field path is refused at its line, listing the section's fields", "[study][file][bad]") {
  const std::string e = load_error("axes:\n  - {field: workload.parallel.tensr, values: [1]}\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:4:"));
  CHECK_THAT(e, Catch::Contains("'tensr' is not a field of `workload.parallel`"));
  CHECK_THAT(e, Catch::Contains("tensor"));
  CHECK_THAT(load_error("axes:\n  - {field: \"sytem.nodes[0].count\", values: [1]}\n"),
             Catch::Contains("is not a field of a run config; valid fields are name, description, system"));
  CHECK_THAT(load_error("axes:\n  - {field: system.fabric.bogus.x, values: [1]}\n"),
             Catch::Contains("'bogus' is not a field of `system.fabric`"));
  CHECK_THAT(load_error("axes:\n  - {field: workload..x, values: [1]}\n"), Catch::Contains("is not a field path"));
}

TEST_CASE("a value of the wrong unit is refused at that value", "[study][file][bad]") {
  const std::string e =
      load_error("axes:\n  - field: system.fabric.bandwidth\n    values:\n      - 400 Gb/s\n      - 400 GB\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:7:"));
  CHECK_THAT(e, Catch::Contains("400 GB"));
  CHECK_THAT(e, Catch::Contains("system.fabric.bandwidth"));
  CHECK_THAT(load_error("axes:\n  - {field: workload.micro_batch, values: [1, two]}\n"),
             Catch::Contains("expected an integer, got 'two'"));
  CHECK_THAT(load_error("axes:\n  - {field: workload.activation_recompute, values: [none, some]}\n"),
             Catch::Contains("choose none, selective, selective_op or full"));
  CHECK_THAT(load_error("axes:\n  - {field: workload.ddp.bucket_size, values: [25 MB/s]}\n"),
             Catch::Contains("25 MB/s"));
}

TEST_CASE("empty axes, unequal zips, a field twice and a missing base are refused", "[study][file][bad]") {
  CHECK_THAT(load_error("axes:\n  - {field: workload.micro_batch, values: []}\n"),
             Catch::Contains("bad.yaml:4:") && Catch::Contains("the axis has no values"));
  CHECK_THAT(load_error("axes:\n  - zip:\n      - {field: workload.micro_batch, values: [1, 2]}\n"
                        "      - {field: workload.global_batch, values: [4]}\n"),
             Catch::Contains("bad.yaml:6:") && Catch::Contains("as many values each"));
  CHECK_THAT(load_error("axes:\n  - {field: workload.micro_batch, values: [1]}\n"
                        "  - {field: workload.micro_batch, values: [2]}\n"),
             Catch::Contains("bad.yaml:5:") && Catch::Contains("varied by two axes"));
  CHECK_THAT(load_error("axes: []\n"), Catch::Contains("expected a list of axes"));
  CHECK_THAT(load_error("axis: []\n"), Catch::Contains("axes"));
  const std::string file = simctl::testing::study_temp_dir() / "nobase.yaml";
  std::ofstream(file) << "study: x\nbase: missing.yaml\naxes:\n  - {field: workload.micro_batch, values: [1]}\n";
  try {
    load_study(file);
    FAIL("a missing base loaded");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("nobase.yaml:2:") && Catch::Contains("does not exist"));
  }
}

TEST_CASE("a study over a million points needs confirming", "[study][points][bad]") {
  std::string values = "[";
  for (int i = 1; i <= 1001; ++i) values += std::to_string(i) + (i < 1001 ? ", " : "]");
  const Study s =
      load_study(write_study("big.yaml", "axes:\n  - {field: workload.micro_batch, values: " + values +
                                             "}\n  - {field: workload.global_batch, values: " + values + "}\n"));
  CHECK(point_count(s) == 1'002'001);
  try {
    check_point_count(s, false);
    FAIL("over a million points ran unconfirmed");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("big.yaml:4:") && Catch::Contains("1,002,001 points") && Catch::Contains("--yes"));
  }
  CHECK_NOTHROW(check_point_count(s, true));
}
