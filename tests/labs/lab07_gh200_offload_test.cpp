// Lab 7 (labs/07-gh200-offload): Llama 3 8B does not train on one GH200
// without offload; with ZeRO-Offload it fits, and its step over PCIe Gen5 is
// slower than over NVLink-C2C by what their bandwidths say; a model that
// fits anyway trains faster without offload.
#include <catch2/catch.hpp>
#include <string>

#include "sim/config/config_error.hpp"
#include "tests/labs/lab_run.hpp"
#include "tests/workloads/plan_run.hpp"

using namespace simctl;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab07 {

namespace {

const std::string kLab = "labs/07-gh200-offload/";

const OpTiming& timing_of(const testing::PlanRun& run, const std::string& name) {
  const auto& ops = run.scenario.trace.ops(0);
  for (OpIndex i = 0; i < ops.size(); ++i) {
    if (ops[i].name == name) return run.result.timeline(0).ops[i];
  }
  FAIL("no op " << name);
  throw std::logic_error("unreachable");
}

double seconds_of(const testing::PlanRun& run, const std::string& name) {
  const OpTiming& t = timing_of(run, name);
  return ps_to_seconds(t.end - t.start);
}

double effective_gb_per_s(const testing::PlanRun& run, LinkKind kind) {
  return run.scenario.link_kinds.defaults(kind).effective().gb_per_s();
}

}  // namespace

TEST_CASE("lab 7: Llama 3 8B is refused on one GH200 without offload and fits with it", "[labs]") {
  const std::string refused = testing::config_path(kLab + "llama3_8b_gh200.yaml");
  CHECK_THROWS_WITH(load_scenario(refused), Catch::Contains("out of memory"));
  ScenarioOptions anyway;
  anyway.allow_out_of_memory = true;
  anyway.skip_trace_when_out_of_memory = true;
  const Scenario full = load_scenario(refused, anyway);
  CHECK(first_out_of_memory_rank(full).has_value());

  for (const char* config : {"llama3_8b_gh200_offload.yaml", "llama3_8b_h100_pcie_offload.yaml"}) {
    INFO(config);
    const Scenario offloaded = load_scenario(testing::config_path(kLab + config));
    CHECK_FALSE(first_out_of_memory_rank(offloaded).has_value());
    CHECK(rank_host_bytes(offloaded, 0) > 0.0);
    CHECK(rank_host_bytes(offloaded, 0) < rank_host_capacity_bytes(offloaded, 0));
  }
}

TEST_CASE("lab 7: the offloaded step is slower over PCIe Gen5 than over NVLink-C2C, by their bandwidths", "[labs]") {
  const testing::PlanRun c2c = testing::run_config(kLab + "llama3_8b_gh200_offload.yaml");
  const testing::PlanRun pcie = testing::run_config(kLab + "llama3_8b_gh200_pcie_offload.yaml");
  INFO("step over C2C " << c2c.step_s() << " s, over PCIe Gen5 " << pcie.step_s() << " s");
  CHECK(pcie.step_s() > c2c.step_s());

  // The weight upload has the link to itself: its time is bytes over the
  // link's effective rate, so the two uploads differ by the rates' ratio.
  const double bandwidth_ratio =
      effective_gb_per_s(c2c, LinkKind::nvlink_c2c) / effective_gb_per_s(c2c, LinkKind::pcie_gen5_x16);
  const double upload_ratio =
      seconds_of(pcie, "optimizer.weights.upload") / seconds_of(c2c, "optimizer.weights.upload");
  INFO("upload time ratio " << upload_ratio << ", effective bandwidth ratio " << bandwidth_ratio);
  CHECK(upload_ratio == Approx(bandwidth_ratio).epsilon(0.05));

  // The same CPU and memory on both: the host Adam step costs the same, and
  // the step grows by no more than the copies' whole time at PCIe's rate.
  CHECK(seconds_of(pcie, "optimizer.cpu_adam") == Approx(seconds_of(c2c, "optimizer.cpu_adam")).epsilon(0.01));
  const double copied_bytes = 4.0 * static_cast<double>(c2c.scenario.workload.model.parameter_count());
  const double all_copies_pcie = copied_bytes / (effective_gb_per_s(c2c, LinkKind::pcie_gen5_x16) * 1e9);
  CHECK(pcie.step_s() - c2c.step_s() > seconds_of(pcie, "optimizer.weights.upload") * 0.9);
  CHECK(pcie.step_s() - c2c.step_s() < all_copies_pcie);
}

TEST_CASE("lab 7: a model that fits trains faster without offload", "[labs]") {
  const testing::PlanRun on_gpu = testing::run_config(kLab + "gpt_1p3b_gh200.yaml");
  const testing::PlanRun offloaded = testing::run_config(kLab + "gpt_1p3b_gh200_offload.yaml");
  INFO("GPT 1.3B step on the GPU " << on_gpu.step_s() << " s, with ZeRO-Offload " << offloaded.step_s() << " s");
  CHECK(on_gpu.step_s() < offloaded.step_s());
}

TEST_CASE("Lab 7: simctl lab run 7 prints what fits with offload and what C2C saves over PCIe", "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(7);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  CHECK_THAT(lab.result.out, Catch::Contains("llama3_8b_gh200.yaml   (refused, as the lab expects)"));
  CHECK(lab.number("Llama 3 8B, no offload: needs") > 96.0);  // the GH200's HBM3
  CHECK(lab.number("Llama 3 8B, optimizer offloaded: on GPU") < 89.4);
  CHECK(lab.number("step, optimizer offload over PCIe Gen5") > lab.number("step, optimizer offload over C2C"));
  CHECK(lab.number("exposed copies, PCIe Gen5") > 4 * lab.number("exposed copies, C2C"));
  CHECK(lab.number("CPU Adam step, Xeon (DDR5)") > lab.number("CPU Adam step, Grace (LPDDR5X)"));
  // Activation offload is nearly free over C2C and not over PCIe.
  CHECK(lab.number("step, + activations over C2C") < 1.05 * lab.number("step, optimizer offload over C2C"));
  CHECK(lab.number("step, + activations over PCIe Gen5") > 1.5 * lab.number("step, optimizer offload over PCIe Gen5"));
  CHECK(lab.number("GPT 1.3B on GH200, optimizer offloaded") > 2 * lab.number("GPT 1.3B on GH200, nothing offloaded"));
}

}  // namespace lab07
