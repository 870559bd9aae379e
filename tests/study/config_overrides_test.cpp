#include "sim/config/config_overrides.hpp"

#include <catch2/catch.hpp>

using namespace simctl;

namespace {

ConfigOverride at(std::string path, std::string value) {
  return ConfigOverride{std::move(path), std::move(value), SourceLocation{"study.yaml", 7, 5}};
}

YAML::Node base() {
  return YAML::Load(
      "system: {nodes: [{template: dgx, count: 2}], fabric: {link: infiniband_ndr}}\n"
      "workload: {micro_batch: 1, parallel: {tensor: 8}}\n");
}

}  // namespace

TEST_CASE("overrides replace fields and list elements, and add a new last key", "[study][overrides]") {
  YAML::Node tree = base();
  apply_overrides(tree, "",
                  {at("system.nodes[0].count", "16"), at("workload.parallel.tensor", "4"),
                   at("workload.parallel.sequence", "true"), at("system.fabric.link", "infiniband_hdr")});
  CHECK(tree["system"]["nodes"][0]["count"].as<int>() == 16);
  CHECK(tree["system"]["nodes"][0]["template"].as<std::string>() == "dgx");
  CHECK(tree["workload"]["parallel"]["tensor"].as<int>() == 4);
  CHECK(tree["workload"]["parallel"]["sequence"].as<bool>());
  CHECK(tree["system"]["fabric"]["link"].as<std::string>() == "infiniband_hdr");
}

TEST_CASE("a section the base leaves out starts empty", "[study][overrides]") {
  YAML::Node tree = base();
  apply_overrides(tree, "", {at("pricing.gpu_hour_price", "2.5"), at("workload.model.layers", "12")});
  CHECK(tree["pricing"]["gpu_hour_price"].as<double>() == 2.5);
  CHECK(tree["workload"]["model"]["layers"].as<int>() == 12);
  CHECK(tree["workload"]["micro_batch"].as<int>() == 1);
}

TEST_CASE("overrides under a prefix apply inside that section only", "[study][overrides]") {
  YAML::Node tree = base();
  YAML::Node workload = tree["workload"];
  apply_overrides(workload, "workload", {at("workload.micro_batch", "4"), at("system.nodes[0].count", "3")});
  CHECK(tree["workload"]["micro_batch"].as<int>() == 4);
  CHECK(tree["system"]["nodes"][0]["count"].as<int>() == 2);
}

TEST_CASE("a path that leads nowhere is an error at the override's origin", "[study][overrides]") {
  const auto message = [](const std::string& path) {
    YAML::Node tree = base();
    try {
      apply_overrides(tree, "", {at(path, "1")});
    } catch (const ConfigError& e) {
      CHECK(e.where().file == "study.yaml");
      CHECK(e.where().line == 7);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK_THAT(message("system.nodes[3].count"), Catch::Contains("has no element [3] (it has 1)"));
  CHECK_THAT(message("workload.micro_batch.x"), Catch::Contains("the value '1', not a mapping"));
  CHECK_THAT(message("system.nodes[x].count"), Catch::Contains("list index"));
  CHECK_THAT(message("workload..tensor"), Catch::Contains("empty name"));
}

TEST_CASE("a loader's error on an overridden field is blamed on the override", "[study][overrides]") {
  const ConfigOverrides overrides{at("workload.parallel", "{tensor: 3}")};
  const ConfigError below(SourceLocation{"base.yaml", 0, 0}, "workload.parallel.tensor", "must divide 32 heads");
  try {
    blame_override(below, overrides);
    FAIL("not blamed");
  } catch (const ConfigError& e) {
    CHECK(e.where().file == "study.yaml");
    CHECK(e.field() == "workload.parallel.tensor");
  }
  const ConfigError elsewhere(SourceLocation{"base.yaml", 3, 1}, "workload.parallel_x", "unknown field");
  CHECK_NOTHROW(blame_override(elsewhere, overrides));
}
