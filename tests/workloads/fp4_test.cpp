// FP4 training (`precision: fp4`): FP8 training's linear layers with 4-bit
// block-scaled GEMM operands (NVFP4 on Blackwell, MXFP4 on CDNA4) at the
// GPU's FP4 rate, and the configs it refuses.
#include <catch2/catch.hpp>

#include "config_rejection.hpp"
#include "op_named.hpp"
#include "plan_run.hpp"
#include "workloads/stage_layout.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace fp4_detail {

std::string llama7b(const std::string& precision) {
  return "  model: llama2-7b\n  parallel: {data: 8}\n  strategy: zero1\n  micro_batch: 1\n  global_batch: 16\n"
         "  precision: " +
         precision + "\n";
}

WorkloadSpec fp4_workload(const std::string& lines) {
  return parse_workload(ConfigNode::load_string("workload:\n" + lines, "w.yaml").child("workload"));
}

std::string config_on(const std::string& system, const std::string& lines) {
  return write_test_config(
      "simctl_fp4", "case",
      "name: fp4 case\nsystem: " + config_path("configs/systems/" + system) + "\nworkload:\n" + lines);
}

}  // namespace fp4_detail

using namespace fp4_detail;

TEST_CASE("fp4 runs the linear layers' GEMMs in fp4, with fp8 training's casts", "[fp4]") {
  const WorkloadSpec spec = fp4_workload(llama7b("fp4"));
  REQUIRE(spec.fp8);
  CHECK(spec.fp8->gemm_dtype == DType::fp4);
  CHECK(spec.precision == DType::bf16);
  const PassShape shape = plan_shape(spec);
  const auto fwd = forward_ops(shape);
  const auto bwd = backward_ops(shape);
  for (const char* gemm : {"layer0.qkv", "layer0.attn_out", "layer0.mlp_up", "layer0.mlp_down"}) {
    CHECK(op_named(fwd, gemm).work.dtype == DType::fp4);
    CHECK(op_named(bwd, std::string(gemm) + ".dgrad").work.dtype == DType::fp4);
    CHECK(op_named(fwd, std::string(gemm) + ".fp8_cast").work.kind == ComputeKind::elementwise);
  }
  CHECK(op_named(fwd, "lm_head").work.dtype == DType::bf16);
  CHECK(op_named(fwd, "layer0.attention").work.dtype == DType::bf16);
  // Half a byte per operand element: the GEMM reads half fp8's bytes.
  const WorkloadSpec fp8 = fp4_workload(llama7b("fp8"));
  const auto fwd8 = forward_ops(plan_shape(fp8));
  CHECK(op_named(fwd, "layer0.mlp_up").work.memory_bytes < op_named(fwd8, "layer0.mlp_up").work.memory_bytes);
}

// On a B200 the FP4 peak is twice FP8's: the linear GEMMs take about half the
// time, the casts, attention, norms and optimizer none less, so the step lands
// between 0.6x and 0.95x of the fp8 step. A part's FP4 peak is what moves it.
TEST_CASE("fp4 speeds a Llama 2 7B step on B200 over fp8 by a bounded factor", "[fp4][plans]") {
  const auto step = [](const std::string& precision) {
    return run_scenario(load_scenario(config_on("dgx_b200.yaml", llama7b(precision)))).step_s();
  };
  const double fp4 = step("fp4");
  const double fp8 = step("fp8");
  CHECK(fp4 / fp8 > 0.6);
  CHECK(fp4 / fp8 < 0.95);
}

TEST_CASE("fp4 on a GPU without FP4 tensor cores is refused naming the parts that have them", "[fp4][errors]") {
  const std::string msg = load_rejection(config_on("dgx_h100.yaml", llama7b("fp4")));
  CHECK_THAT(msg, Catch::Contains("workload.precision"));
  CHECK_THAT(msg, Catch::Contains("fp4 needs FP4 tensor cores"));
  CHECK_THAT(msg, Catch::Contains("h100-sxm"));
  CHECK_THAT(msg, Catch::Contains("use fp8 or bf16"));
  CHECK_THAT(msg, Catch::Contains("b200") && Catch::Contains("mi355x"));
  // And on a part without fp8 either, only bf16 is offered.
  CHECK_THAT(load_rejection(config_on("dgx_a100.yaml", llama7b("fp4"))), Catch::Contains("use bf16,"));
}
