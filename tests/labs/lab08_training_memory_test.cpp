// Lab 8: memory for training and inference. Checks what the lab's README
// tells students to read: the MLP's parameter count as `simctl memory`
// prints it, training against inference memory for one model, what ZeRO's
// stages and recompute save, and that the largest model that trains grows
// from one RTX 3090 to one H100 to 8 H100s with FSDP (the sweep's memory
// estimate decides which points are out of memory).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run_binary.hpp"
#include "tests/labs/lab_run.hpp"
#include "tests/workloads/plan_run.hpp"

using namespace simctl;
using nlohmann::json;
using simctl::testing::config_path;
using simctl::testing::read_text;
using simctl::testing::run_simctl;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab08 {

namespace {

const std::string kLab = "labs/08-training-memory/";

// The fullest stage's estimate, in bytes.
double peak_bytes(const Scenario& s) {
  double peak = 0.0;
  for (const StageMemory& m : s.memory) peak = std::max(peak, m.total_bytes());
  return peak;
}

Scenario training_plan(const std::string& strategy, const std::string& recompute) {
  ConfigOverrides overrides{{"workload.strategy", strategy, {}}, {"workload.activation_recompute", recompute, {}}};
  return load_scenario(config_path(kLab + "gpt_1p3b_dgx_h100.yaml"),
                       ScenarioOptions{true, false, overrides, true, nullptr});
}

}  // namespace

TEST_CASE("Lab 8: simctl memory prints the MLP's 22,538 parameters", "[labs]") {
  const auto r = run_simctl("memory configs/dgx_h100_x8_mlp_ddp.yaml");
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("parameters: 22,538 "));
}

TEST_CASE("Lab 8: training a model needs more memory than serving it", "[labs]") {
  const Scenario train = load_scenario(config_path(kLab + "gpt_1p3b_train_h100.yaml"));
  const Scenario infer =
      load_scenario(config_path(kLab + "gpt_1p3b_infer_h100.yaml"), ScenarioOptions{false, true, {}, false, nullptr});
  INFO("training " << peak_bytes(train) / 1e9 << " GB, inference " << peak_bytes(infer) / 1e9 << " GB");
  // Gradients and Adam's states alone are 14 of training's 16 bytes per parameter.
  CHECK(peak_bytes(train) > 3.0 * peak_bytes(infer));
}

TEST_CASE("Lab 8: each ZeRO stage and each recompute level needs less memory per GPU", "[labs]") {
  const double ddp = peak_bytes(training_plan("ddp", "none"));
  const double zero1 = peak_bytes(training_plan("zero1", "none"));
  const double zero2 = peak_bytes(training_plan("zero2", "none"));
  const double zero3 = peak_bytes(training_plan("zero3", "none"));
  INFO("ddp " << ddp / 1e9 << " GB, zero1 " << zero1 / 1e9 << ", zero2 " << zero2 / 1e9 << ", zero3 " << zero3 / 1e9);
  CHECK(ddp > zero1);
  CHECK(zero1 > zero2);
  CHECK(zero2 > zero3);
  const double selective = peak_bytes(training_plan("ddp", "selective"));
  const double full = peak_bytes(training_plan("ddp", "full"));
  INFO("recompute none " << ddp / 1e9 << " GB, selective " << selective / 1e9 << ", full " << full / 1e9);
  CHECK(ddp >= selective);  // FlashAttention keeps no scores, so selective may save nothing
  CHECK(selective > full);
}

TEST_CASE("Lab 8: the largest model that trains grows from an RTX 3090 to an H100 to 8 H100s with FSDP", "[labs]") {
  const auto file = std::filesystem::temp_directory_path() / ("lab08_" + std::to_string(::getpid()) + ".json");
  const auto r = run_simctl("sweep " + kLab + "largest_model.yaml --json " + file.string());
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const json sweep = json::parse(read_text(file));
  std::filesystem::remove(file);
  const std::size_t models = sweep.at("axes").back().at("values").size();  // workload.model, smallest first
  const json& points = sweep.at("points");
  REQUIRE(points.size() == 3 * models);
  // Points run in nested-loop order: system (slowest), then model.
  const auto largest = [&](std::size_t system) {
    int index = -1;
    for (std::size_t m = 0; m < models; ++m) {
      const std::string status = points.at(system * models + m).at("status");
      CHECK(status != "invalid");
      if (status == "ok") index = static_cast<int>(m);
    }
    return index;
  };
  const int rtx3090 = largest(0), h100 = largest(1), dgx = largest(2);
  INFO("largest model index: 3090 " << rtx3090 << ", H100 " << h100 << ", 8x H100 " << dgx);
  CHECK(rtx3090 >= 0);
  CHECK(rtx3090 < h100);
  CHECK(h100 < dgx);
  CHECK(dgx < static_cast<int>(models) - 1);  // the largest in the list fits nowhere: the table shows the limit
}

TEST_CASE("Lab 8: simctl lab run 8 prints the MLP's 22,538 parameters and where memory goes", "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(8);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  CHECK(lab.at("MLP 33-512-10 parameters").text == "22,538");
  CHECK(lab.number("MLP 33-512-10 parameters") == 33 * 512 + 512 + 512 * 10 + 10);
  CHECK(lab.number("GPT 1.3B training, 1 H100: total") > 3 * lab.number("GPT 1.3B inference, batch 4 x 2048: total"));
  CHECK(lab.number("8 H100, DDP: peak per GPU") > lab.number("8 H100, ZeRO-1: peak per GPU"));
  CHECK(lab.number("8 H100, ZeRO-1: peak per GPU") > lab.number("8 H100, ZeRO-2: peak per GPU"));
  CHECK(lab.number("8 H100, ZeRO-2: peak per GPU") > lab.number("8 H100, ZeRO-3: peak per GPU"));
  CHECK(lab.number("8 H100, ZeRO-3: peak per GPU") > lab.number("8 H100, ZeRO-3 + full recompute: peak"));
  CHECK(lab.number("8 H100, ZeRO-3 + full recompute: step") > lab.number("8 H100, DDP: step"));
  CHECK(lab.number("1x RTX 3090: gpt-1.3b peak") < 24.0);
  CHECK(lab.number("1x RTX 3090: gpt-2.7b needs") > 24.0);
  CHECK(lab.number("1x H100: gpt-2.7b peak") < 80.0);
  CHECK(lab.number("1x H100: gpt-6.7b needs") > 80.0);
  CHECK(lab.number("8x H100 FSDP: megatron-gpt-22b peak") < 80.0);
  CHECK(lab.number("8x H100 FSDP: llama2-70b needs") > 80.0);
}

}  // namespace lab08
