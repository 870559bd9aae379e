// `simctl lab list` and `simctl lab run N`: the index comes from the labs'
// recipes, bad lab numbers and malformed recipes get errors that say what is
// valid, and a figure whose pattern no longer matches is an error, not a
// silently missing row.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string>

#include "sim/cli/lab_recipe.hpp"
#include "tests/cli/run_binary.hpp"

using simctl::testing::run_simctl;

namespace {

const char* kLabFolders[] = {
    "01-roofline",           "02-memory-hierarchy",      "03-host-to-device", "04-dataparallel-vs-ddp",
    "05-scaling-out",        "06-model-pipeline-hybrid", "07-gh200-offload",  "08-training-memory",
    "09-rtx3090-cnn-vs-lstm"};

// A labs folder holding one lab, 01-demo, with `recipe` as its lab.yaml.
std::string labs_with(const std::string& name, const std::string& recipe) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_labs_" + name + std::to_string(::getpid()));
  std::filesystem::create_directories(dir / "01-demo");
  std::ofstream(dir / "01-demo" / "lab.yaml") << recipe;
  return dir.string();
}

const std::string kGoodRecipe =
    "title: Demo\n"
    "question: Is the DGX's step under a second?\n"
    "steps:\n"
    "  - {id: mem, simctl: memory configs/dgx_h100_x8.yaml}\n"
    "figures:\n"
    "  - {figure: weights, step: mem, match: 'parameters: ([0-9,]+)', unit: parameters}\n";

}  // namespace

TEST_CASE("lab list prints the nine labs with number, folder and question", "[cli][lab]") {
  const auto r = run_simctl("lab list");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  for (int n = 1; n <= 9; ++n) {
    INFO(kLabFolders[n - 1]);
    CHECK_THAT(r.out, Catch::Contains(" " + std::to_string(n) + "  " + kLabFolders[n - 1] + ": "));
  }
  CHECK_THAT(r.out, Catch::Contains("How much faster than one GPU are nn.DataParallel and DDP on 8 GPUs"));
  CHECK(simctl::load_labs(std::string(SIMCTL_SOURCE_DIR) + "/labs").size() == 9);
}

TEST_CASE("lab run refuses a lab that does not exist, listing the valid ones", "[cli][lab]") {
  for (const char* bad : {"42", "x", "0", "1x"}) {
    const auto r = run_simctl(std::string("lab run ") + bad);
    INFO(bad << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK_THAT(r.err, Catch::Contains("no lab '" + std::string(bad) + "'"));
    CHECK_THAT(r.err, Catch::Contains("valid labs are 1 (01-roofline), 2 (02-memory-hierarchy)"));
    CHECK_THAT(r.err, Catch::Contains("9 (09-rtx3090-cnn-vs-lstm)"));
  }
  const auto none = run_simctl("lab run");
  CHECK(none.exit_code == 2);
  CHECK_THAT(none.err, Catch::Contains("simctl lab run N"));
}

TEST_CASE("lab run prints each figure its recipe names, read from the command's output", "[cli][lab]") {
  const auto r = run_simctl("lab run 1 --labs " + labs_with("good", kGoodRecipe));
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("Lab 1: Demo\nIs the DGX's step under a second?"));
  CHECK_THAT(r.out, Catch::Contains("  simctl memory configs/dgx_h100_x8.yaml\n"));
  CHECK_THAT(r.out, Catch::Contains("weights   1,315,723,264  parameters"));
}

TEST_CASE("a recipe whose figure no longer matches the output is an error naming file:line", "[cli][lab]") {
  std::string recipe = kGoodRecipe;
  recipe.replace(recipe.find("parameters: "), 12, "params: ");
  const auto r = run_simctl("lab run 1 --labs " + labs_with("stale", recipe));
  CHECK(r.exit_code == 1);
  CHECK_THAT(r.err, Catch::Contains("01-demo/lab.yaml:6:"));
  CHECK_THAT(r.err, Catch::Contains("figure 'weights': no line of step 'mem' matches"));
}

TEST_CASE("malformed recipes are refused with file:line, the field and what is valid", "[cli][lab]") {
  struct Case {
    std::string from, to, message;
  };
  const Case cases[] = {
      {"step: mem,", "step: memory,", "no step has id 'memory'; valid: mem"},
      {"([0-9,]+)'", "[0-9,]+'", "the pattern needs one capture group"},
      {", unit: parameters}", "}", "needs `unit`"},
      {"([0-9,]+)'", "([0-9,]+'", "not a valid regular expression"},
      {"question:", "questoin:", "questoin"},
  };
  for (const Case& c : cases) {
    std::string recipe = kGoodRecipe;
    recipe.replace(recipe.find(c.from), c.from.size(), c.to);
    const auto r = run_simctl("lab list --labs " + labs_with("bad", recipe));
    INFO(c.message << ": " << r.err);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains("01-demo/lab.yaml:"));
    CHECK_THAT(r.err, Catch::Contains(c.message));
  }
}
