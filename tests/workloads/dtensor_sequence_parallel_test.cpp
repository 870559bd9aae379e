// torchtitan's sequence parallelism as DTensor runs it (workloads/
// transformer_ops.cpp): activations are batch-first, so a plain SP
// collective of a micro-batch above one sequence copies the whole tensor
// (torch's chunk-and-cat, frameworks.yaml tp_sequence_dim_copies), and the
// op-level AC policy, whose save list has no all-gather, gathers the
// norms' outputs again before a block's backward. Traced, not replayed.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <string_view>

#include "op_named.hpp"
#include "plan_run.hpp"

using namespace simctl;

namespace dtensor_sp_test {

struct Plan {
  const char* framework = "torchtitan";
  int micro_batch = 2;
  int tensor = 8;
  const char* recompute = "none";
  bool async_tp = false;
  const char* precision = "bf16";
};

// Llama 3 8B on one DGX H100 under `plan`.
Scenario load_plan(const Plan& plan) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_dtensor_sp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "plan.yaml";
  // A literal path: config_path's string sum, inlined here, trips GCC 12's
  // false -Warray-bounds at -O1 in this unity batch.
  const char* system = SIMCTL_SOURCE_DIR "/configs/systems/dgx_h100.yaml";
  std::ofstream(file) << "name: DTensor SP test\nsystem: " << system
                      << "\nworkload:\n  model: llama3-8b\n  framework: " << plan.framework
                      << "\n  compile: " << (std::string_view(plan.framework) == "torchtitan" ? "true" : "false")
                      << "\n  parallel: {data: " << 8 / plan.tensor << ", tensor: " << plan.tensor
                      << ", sequence: " << (plan.tensor > 1 ? "true" : "false")
                      << ", async_tp: " << (plan.async_tp ? "true" : "false")
                      << "}\n  micro_batch: " << plan.micro_batch
                      << "\n  global_batch: " << plan.micro_batch * 8 / plan.tensor
                      << "\n  activation_recompute: " << plan.recompute << "\n  precision: " << plan.precision
                      << "\n  attention: flash2\n  strategy: fsdp\n";
  return load_scenario(file.string());
}

const Op* sp_op(const Scenario& s, const std::string& name) { return testing::trace_op_named(s.trace, 0, name); }

std::size_t sp_index(const Scenario& s, const std::string& name) { return testing::trace_op_index(s.trace, 0, name); }

double copy_bytes(const Scenario& s, const std::string& name) {
  return std::get<ComputeWork>(s.trace.ops(0)[sp_index(s, name)].work).memory_bytes;
}

double collective_bytes(const Scenario& s, const std::string& name) {
  return std::get<CollectiveCall>(s.trace.ops(0)[sp_index(s, name)].work).bytes;
}

}  // namespace dtensor_sp_test

using namespace dtensor_sp_test;

TEST_CASE("torchtitan's SP copies a batch-first tensor whole around each plain collective, from two sequences on",
          "[plans][dtensor]") {
  const Scenario titan = load_plan({});
  // After each gather, the cat onto the sequence dimension: the gathered
  // tensor read and written, before anything reads it.
  for (const std::string gather : {"mb0.layer3.attn.all_gather", "mb0.layer3.mlp.all_gather",
                                   "mb0.layer3.attn_out.grad.all_gather", "mb0.layer3.mlp_down.grad.all_gather"}) {
    INFO(gather);
    const std::size_t at = sp_index(titan, gather);
    CHECK(sp_index(titan, gather + ".chunk_cat") == at + 1);
    CHECK(copy_bytes(titan, gather + ".chunk_cat") == Approx(2.0 * collective_bytes(titan, gather)));
    const auto& deps = titan.trace.ops(0)[at + 1].deps;
    CHECK(std::find(deps.begin(), deps.end(), at) != deps.end());
  }
  // Before each reduce-scatter, the chunks of the sequence stacked on dim 0.
  for (const std::string scatter : {"mb0.layer3.attn.reduce", "mb0.layer3.mlp.reduce", "mb0.layer3.qkv.dgrad.reduce"}) {
    INFO(scatter);
    CHECK(sp_index(titan, scatter + ".chunk_cat") + 1 == sp_index(titan, scatter));
    CHECK(copy_bytes(titan, scatter + ".chunk_cat") == Approx(2.0 * collective_bytes(titan, scatter)));
  }
  // One sequence a micro-batch: the cat is a view. Megatron is sequence-first.
  Plan one_sequence;
  one_sequence.micro_batch = 1;
  CHECK_FALSE(sp_op(load_plan(one_sequence), "mb0.layer3.attn.all_gather.chunk_cat"));
  Plan megatron;
  megatron.framework = "megatron-lm";
  CHECK_FALSE(sp_op(load_plan(megatron), "mb0.layer3.attn.all_gather.chunk_cat"));
  // AsyncTP's fused matmuls take the layout as it is, and return the
  // gathered tensor as a strided view: copied once, before the weight
  // gradient that reads it.
  Plan async;
  async.async_tp = true;
  const Scenario fused = load_plan(async);
  CHECK(sp_op(fused, "mb0.layer3.qkv.chunk0"));
  CHECK_FALSE(sp_op(fused, "mb0.layer3.attn.all_gather.chunk_cat"));
  for (const std::string layer : {"mb0.layer3.qkv.input", "mb0.layer3.attn_out.grad"}) {
    INFO(layer);
    const std::string linear = layer.substr(0, layer.rfind('.'));
    CHECK(sp_index(fused, layer + ".contiguous") < sp_index(fused, linear + ".wgrad"));
  }
  async.micro_batch = 1;
  CHECK_FALSE(sp_op(load_plan(async), "mb0.layer3.qkv.input.contiguous"));
}

TEST_CASE("torchtitan's op-level AC under SP gathers the norms' outputs again before a block's backward",
          "[plans][dtensor]") {
  Plan plan;
  plan.recompute = "selective_op";
  const Scenario titan = load_plan(plan);
  // Its save list holds the matmuls, SDPA and reduce_scatter_tensor, not
  // all_gather_into_tensor: the weight gradients read the gathered input.
  for (const std::string region : {"attn", "mlp"}) {
    INFO(region);
    const std::string gather = "mb0.layer3.recompute." + region + ".all_gather";
    REQUIRE(sp_op(titan, gather));
    CHECK(std::holds_alternative<CollectiveCall>(sp_op(titan, gather)->work));
    CHECK(sp_index(titan, gather) < sp_index(titan, "mb0.layer3.qkv.wgrad"));
  }
  CHECK(sp_index(titan, "mb0.layer3.recompute.ln1") < sp_index(titan, "mb0.layer3.recompute.attn.all_gather"));
  // Without TP nothing is gathered.
  Plan data_only = plan;
  data_only.tensor = 1;
  CHECK_FALSE(sp_op(load_plan(data_only), "mb0.layer3.recompute.attn.all_gather"));
  // Under AsyncTP the gather is fused with the first re-run matmul it feeds
  // (wk; w3 in the MLP), which then does not run again on its own.
  plan.async_tp = true;
  const Scenario fused = load_plan(plan);
  CHECK(sp_op(fused, "mb0.layer3.recompute.wk.chunk0"));
  CHECK(sp_op(fused, "mb0.layer3.recompute.w3.chunk0"));
  CHECK_FALSE(sp_op(fused, "mb0.layer3.recompute.wk"));
  CHECK(sp_op(fused, "mb0.layer3.recompute.wo"));
}

TEST_CASE("op-level AC re-runs a Float8 linear's matmul in fp8", "[plans][dtensor]") {
  Plan plan;
  plan.recompute = "selective_op";
  plan.tensor = 1;
  plan.precision = "fp8";
  const Scenario fp8 = load_plan(plan);
  for (const std::string mm : {"mb0.layer3.recompute.wk", "mb0.layer3.recompute.w3"}) {
    INFO(mm);
    REQUIRE(sp_op(fp8, mm));
    CHECK(std::get<ComputeWork>(sp_op(fp8, mm)->work).dtype == DType::fp8);
  }
}
