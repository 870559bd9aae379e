// Lab 6: tensor parallelism inside against across nodes, pipeline bubbles
// against the textbook formula, and hybrid plans for a model no GPU holds.
#include <catch2/catch.hpp>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/labs/lab_report.hpp"
#include "tests/labs/lab_run.hpp"

using namespace simctl;
using nlohmann::json;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab06 {

namespace {

const std::string kLab = "labs/06-model-pipeline-hybrid/";

double share(const StepReport& r, Category c) { return ps_to_seconds(r.mean[c]) / ps_to_seconds(r.step_time); }

}  // namespace

TEST_CASE("Lab 6: tensor parallelism belongs inside the node", "[labs]") {
  const testing::LabRun inside = testing::run_lab_config(kLab + "tp_in_node.yaml");
  const testing::LabRun across = testing::run_lab_config(kLab + "tp_across_nodes.yaml");
  const double slowdown = ps_to_seconds(across.report.step_time) / ps_to_seconds(inside.report.step_time);
  INFO("TP 8 across nodes is " << slowdown << "x slower; verdict: " << across.report.bottleneck);
  CHECK(slowdown > 1.5);
  CHECK(share(across.report, Category::comm_tensor) > 2 * share(inside.report, Category::comm_tensor));
  CHECK_THAT(across.report.bottleneck, Catch::Contains("inter-node tensor-parallel"));
}

TEST_CASE("Lab 6: the simulated bubble follows (p-1)/(m+p-1), and interleaving shrinks it", "[labs]") {
  const json result = testing::run_lab_sweep(kLab + "bubbles.yaml");
  std::map<std::string, std::map<int, double>> bubble, memory;  // schedule -> micro-batches -> value
  for (const json& p : result["points"]) {
    REQUIRE(p["status"] == "ok");
    const std::string schedule = p["axes"]["workload.parallel.schedule"];
    const int m = std::stoi(p["axes"]["workload.global_batch"].get<std::string>());
    bubble[schedule][m] = p["breakdown_ms"]["pipeline_bubble"].get<double>() / p["step_time_ms"].get<double>();
    memory[schedule][m] = p["peak_memory_gib"].get<double>();
  }
  const double p = 4;
  for (const std::string schedule : {"gpipe", "1f1b"}) {
    for (const auto& [m, simulated] : bubble.at(schedule)) {
      const double formula = (p - 1) / (m + p - 1);
      INFO(schedule << " m=" << m << ": simulated " << simulated << ", formula " << formula);
      CHECK(simulated == Approx(formula).epsilon(0.12));
    }
  }
  for (const auto& [m, interleaved] : bubble.at("interleaved")) {
    INFO("m=" << m);
    CHECK(interleaved < 0.75 * bubble.at("1f1b").at(m));
  }
  // GPipe holds every micro-batch's activations until its backward; 1F1B at most p.
  CHECK(memory.at("gpipe").at(32) > 2 * memory.at("gpipe").at(4));
  CHECK(memory.at("1f1b").at(32) == Approx(memory.at("1f1b").at(4)));
}

TEST_CASE("Lab 6: GPT 22B fits on no GPU alone, and only sharded or split plans run", "[labs]") {
  const auto one = testing::run_simctl("memory " + testing::config_path(kLab + "one_gpu.yaml"));
  INFO(one.out << one.err);
  CHECK(one.exit_code == 1);
  CHECK(one.out.find("OUT OF MEMORY") != std::string::npos);

  const json result = testing::run_lab_sweep(kLab + "plans.yaml");
  int ran = 0;
  for (const json& p : result["points"]) {
    const bool replicated = p["axes"]["workload.parallel.tensor"] == "1" &&
                            p["axes"]["workload.parallel.pipeline"] == "1" && p["axes"]["workload.strategy"] == "ddp";
    INFO(p.dump());
    CHECK(p["status"] == (replicated ? "out_of_memory" : "ok"));
    ran += p["status"] == "ok" ? 1 : 0;
  }
  CHECK(ran == 5);
}

TEST_CASE("Lab 6: simctl lab run 6 prints TP's cost across nodes, the bubbles and the plans", "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(6);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  CHECK(lab.number("GPT 6.7B TP 8 across nodes: step") > 1.5 * lab.number("GPT 6.7B TP 8 in a node: step"));
  CHECK(lab.number("GPT 6.7B TP 8 across nodes: exposed TP") > 2 * lab.number("GPT 6.7B TP 8 in a node: exposed TP"));
  // (p-1)/(m+p-1) = 3/11 = 27 % at p = 4, m = 8.
  CHECK(lab.number("PP 4, 1F1B, m 8: pipeline bubble") == Approx(100.0 * 3 / 11).epsilon(0.12));
  CHECK(lab.number("PP 4, m 4, interleaved: step") < lab.number("PP 4, m 4, GPipe: step"));
  CHECK(lab.number("PP 4, m 32, GPipe: peak memory") > 2 * lab.number("PP 4, m 32, 1F1B: peak memory"));
  CHECK(lab.number("GPT 22B on one H100 needs") > 80.0);
  CHECK(lab.number("GPT 22B, 32 H100, TP 8 x PP 4: peak") < 80.0);
}

}  // namespace lab06
