// Fine-tuning (`workload.finetune`, workloads/finetune.hpp): frozen weights
// lose their weight-gradient GEMMs, gradients, optimizer states and sync;
// LoRA adds its adapter GEMMs and trains only them; QLoRA stores the base
// linears in nf4 and dequantises them before each read; bad input is refused.
#include <catch2/catch.hpp>

#include "config_rejection.hpp"
#include "op_named.hpp"
#include "plan_run.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/parallel_trace.hpp"
#include "workloads/stage_layout.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace {

WorkloadSpec workload(const std::string& lines) {
  return parse_workload(ConfigNode::load_string("workload:\n" + lines, "w.yaml").child("workload"));
}

const std::string kLlama7b = "  model: llama2-7b\n  parallel: {data: 8}\n  micro_batch: 1\n  global_batch: 16\n";

std::string lora(int rank, const std::string& extra = "") {
  return kLlama7b + "  finetune: {method: lora, rank: " + std::to_string(rank) + extra + "}\n";
}

bool has_op(const std::vector<ModelOp>& ops, const std::string& name) {
  for (const auto& op : ops) {
    if (op.name == name) return true;
  }
  return false;
}

double item_bytes(const StageMemory& row, const std::string& name) {
  for (const auto& use : row.items) {
    if (use.name == name) return use.bytes;
  }
  FAIL("no memory item " << name);
  return 0.0;
}

std::string write_config(const std::string& text) { return write_test_config("simctl_finetune", "run", text); }

std::string run_config_text(const std::string& workload_lines) {
  return "name: finetune case\nsystem: " + config_path("configs/systems/dgx_h100.yaml") + "\nworkload:\n" +
         workload_lines;
}

std::string rejection(const std::string& workload_lines) {
  return load_rejection(write_config(run_config_text(workload_lines)));
}

// Bytes of the step's data-parallel gradient collectives on rank 0.
double gradient_sync_bytes(const Trace& trace) {
  double bytes = 0.0;
  for (const Op& op : trace.ops(0)) {
    if (op.phase != OpPhase::gradient_sync) continue;
    if (const auto* call = std::get_if<CollectiveCall>(&op.work)) bytes += call->bytes;
  }
  return bytes;
}

}  // namespace

TEST_CASE("LoRA drops the frozen weights' wgrad GEMMs and adds the adapters' GEMMs", "[finetune][lora]") {
  const PassShape shape = plan_shape(workload(lora(16, ", targets: [qkv, fc2]")));
  const auto fwd = forward_ops(shape);
  const auto bwd = backward_ops(shape);
  for (const char* gemm : {"layer0.qkv", "layer0.attn_out", "layer0.mlp_up", "layer0.mlp_down"}) {
    CHECK(has_op(bwd, std::string(gemm) + ".dgrad"));  // the input gradient still flows
    CHECK_FALSE(has_op(bwd, std::string(gemm) + ".wgrad"));
  }
  CHECK_FALSE(has_op(bwd, "lm_head.wgrad"));
  CHECK_FALSE(has_op(bwd, "embedding.bwd"));
  // Adapters on the targets only: x A is T x r x k.
  const ComputeWork a = op_named(fwd, "layer0.qkv.lora_a").work;
  CHECK(a.m == 4096);
  CHECK(a.n == 16);
  CHECK(a.k == 4096);
  op_named(fwd, "layer0.mlp_down.lora_b");
  CHECK_FALSE(has_op(fwd, "layer0.mlp_up.lora_a"));
  CHECK_FALSE(has_op(fwd, "layer0.attn_out.lora_a"));
  for (const char* step : {".lora_b.wgrad", ".lora_b.dgrad", ".lora_a.wgrad", ".lora_a.dgrad"}) {
    op_named(bwd, std::string("layer31.qkv") + step);
  }
  // Full training keeps every wgrad and has no adapters.
  const auto full = backward_ops(plan_shape(workload(kLlama7b)));
  CHECK(has_op(full, "layer0.qkv.wgrad"));
  CHECK_FALSE(has_op(full, "layer0.qkv.lora_a.wgrad"));
}

TEST_CASE("frozen layers run no backward below the lowest trainable block", "[finetune]") {
  const auto bwd = backward_ops(plan_shape(workload(kLlama7b + "  finetune: {frozen_layers: 4}\n")));
  CHECK(has_op(bwd, "layer4.qkv.wgrad"));
  CHECK(has_op(bwd, "lm_head.wgrad"));
  CHECK_FALSE(has_op(bwd, "layer3.qkv.dgrad"));
  CHECK_FALSE(has_op(bwd, "layer0.ln1.bwd"));
  CHECK_FALSE(has_op(bwd, "embedding.bwd"));
}

TEST_CASE("LoRA's gradients, optimizer states and DP sync are the adapters' and scale with r", "[finetune][memory]") {
  const WorkloadSpec r16 = workload(lora(16));
  const WorkloadSpec r32 = workload(lora(32));
  const auto& m = r16.model;
  const double h = static_cast<double>(m.hidden);
  const double per_block = 16.0 * (h + static_cast<double>(m.qkv_width()) + h + h + h +
                                   static_cast<double>(m.mlp_up_width()) + static_cast<double>(m.ffn) + h);
  const double adapters = static_cast<double>(m.layers) * per_block;
  CHECK(stage_trainable_parameters(r16, 0) == Approx(adapters));
  const StageMemory row16 = estimate_memory(r16).front();
  const StageMemory row32 = estimate_memory(r32).front();
  CHECK(item_bytes(row16, "optimizer_states") == Approx(12.0 * adapters));
  CHECK(item_bytes(row32, "optimizer_states") == Approx(2.0 * item_bytes(row16, "optimizer_states")));
  CHECK(item_bytes(row16, "gradients") == Approx(2.0 * adapters));
  CHECK(item_bytes(row16, "weights") == Approx(2.0 * (static_cast<double>(m.parameter_count()) + adapters)));

  const Trace trace = build_parallel_trace(r16);
  CHECK(gradient_sync_bytes(trace) == Approx(2.0 * adapters));
}

TEST_CASE("QLoRA stores base linears in about half a byte and dequantises each read", "[finetune][qlora]") {
  const WorkloadSpec q = workload(kLlama7b + "  finetune: {method: qlora, rank: 16}\n");
  const auto& m = q.model;
  const double linear = static_cast<double>(m.layers * m.linear_parameters());
  const double rest = static_cast<double>(m.parameter_count()) - linear;
  const double adapters = stage_trainable_parameters(q, 0);
  const StageMemory row = estimate_memory(q).front();
  CHECK(item_bytes(row, "weights") == Approx(linear * kNf4BytesPerParameter + 2.0 * (rest + adapters)));
  CHECK(kNf4BytesPerParameter == Approx(0.516).epsilon(0.001));
  const PassShape shape = plan_shape(q);
  const ComputeWork dq = op_named(forward_ops(shape), "layer0.qkv.dequant").work;
  const double weights = static_cast<double>(m.hidden * m.qkv_width());
  CHECK(dq.memory_bytes == Approx(weights * (2.0 + kNf4BytesPerParameter)));
  op_named(backward_ops(shape), "layer0.qkv.dequant.bwd");
  CHECK_FALSE(has_op(forward_ops(plan_shape(workload(lora(16)))), "layer0.qkv.dequant"));
}

TEST_CASE("a LoRA step on H100 is cheaper than full training by a bounded factor", "[finetune][plans]") {
  const auto step = [](const std::string& lines) {
    return run_scenario(load_scenario(write_config(run_config_text(lines + "  strategy: zero1\n")))).step_s();
  };
  const double full = step(kLlama7b);
  const double adapted = step(lora(16));
  // Forward and dgrad (2/3 of the GEMM FLOPs) still run; wgrad, the
  // optimizer over 6.7 B parameters and their sync go.
  CHECK(adapted / full > 0.55);
  CHECK(adapted / full < 0.85);
}

TEST_CASE("fine-tuning configs that cannot run are refused with the field and what is valid", "[finetune][errors]") {
  CHECK_THAT(rejection(lora(0)), Catch::Contains("workload.finetune.rank") && Catch::Contains("between 1 and"));
  CHECK_THAT(rejection(lora(5000)), Catch::Contains("workload.finetune.rank") && Catch::Contains("4096"));
  CHECK_THAT(rejection(lora(16, ", targets: [qkv, up]")),
             Catch::Contains("workload.finetune.targets") && Catch::Contains("fc1"));
  CHECK_THAT(rejection(lora(16, ", targets: [qkv, qkv]")), Catch::Contains("twice"));
  CHECK_THAT(rejection(kLlama7b + "  precision: fp8\n  finetune: {method: qlora, rank: 16}\n"),
             Catch::Contains("workload.finetune.method") && Catch::Contains("fp8"));
  CHECK_THAT(rejection(kLlama7b + "  finetune: {method: full, rank: 16}\n"),
             Catch::Contains("workload.finetune.rank") && Catch::Contains("lora"));
  CHECK_THAT(rejection(kLlama7b + "  finetune: {method: lora}\n"), Catch::Contains("rank"));
  CHECK_THAT(rejection(kLlama7b + "  finetune: {frozen_layers: 32}\n"),
             Catch::Contains("workload.finetune.frozen_layers") && Catch::Contains("31"));
  CHECK_THAT(rejection(kLlama7b + "  finetune: {method: adapters}\n"), Catch::Contains("qlora"));
  CHECK_THAT(rejection("  model: mlp-33-512-10\n  parallel: {data: 8}\n  micro_batch: 1\n"
                       "  finetune: {method: lora, rank: 4}\n"),
             Catch::Contains("workload.finetune") && Catch::Contains("transformers"));
}

TEST_CASE("the shipped LoRA and QLoRA configs run and fit", "[finetune][plans]") {
  for (const char* config : {"configs/dgx_h100_x8_llama2_7b_lora.yaml", "configs/h100_x1_llama2_70b_qlora.yaml"}) {
    const PlanRun run = run_config(config);
    CHECK(run.scenario.workload.finetune);
    CHECK(run.step_s() > 0.0);
    CHECK_FALSE(first_out_of_memory_rank(run.scenario));
  }
}

// NeMo's LoRA recipes run TE userbuffers under TP (MLPerf's H100 Llama 2 70B
// LoRA used them). A frozen column-parallel linear has no wgrad to hide its
// dgrad reduce-scatter beside, so the scatter is pipelined with the dgrad
// GEMM's chunks; the step gets faster than without the overlap.
TEST_CASE("LoRA under TP communication overlap pipelines the frozen dgrad's reduce-scatter", "[finetune][tp]") {
  const std::string tp = "  model: llama2-7b\n  parallel: {data: 1, tensor: 8, sequence: true, tp_comm_overlap: ";
  const std::string rest = "}\n  micro_batch: 1\n  global_batch: 4\n  finetune: {method: lora, rank: 16}\n";
  const auto bwd = backward_ops(plan_shape(workload(tp + "true" + rest)));
  op_named(bwd, "layer0.qkv.dgrad.chunk0");
  op_named(bwd, "layer0.qkv.dgrad.reduce.chunk3");
  op_named(bwd, "layer0.mlp_up.dgrad.chunk3");
  CHECK_FALSE(has_op(bwd, "layer0.qkv.dgrad"));
  CHECK_FALSE(has_op(bwd, "layer0.qkv.wgrad"));
  op_named(bwd, "layer0.qkv.lora_a.wgrad");  // the adapters still train
  const auto step = [&](const std::string& overlap) {
    return run_scenario(load_scenario(write_config(run_config_text(tp + overlap + rest)))).step_s();
  };
  CHECK(step("true") < step("false"));
}

// NeMo's LoRA recipes keep the frozen base in fp8 only (fp8_params): 1 B per
// linear weight instead of its bf16 copy and TE's fp8 copy and transpose; the
// dgrad's transpose is made per GEMM and no weight is cast per step.
TEST_CASE("fp8 parameters hold the frozen linears in one byte each", "[finetune][fp8]") {
  const std::string base = kLlama7b + "  precision: fp8\n  finetune: {method: lora, rank: 16}\n";
  const WorkloadSpec copies = workload(base);
  const WorkloadSpec params = workload(base + "  fp8: {params: true}\n");
  const auto& m = params.model;
  const double linear = static_cast<double>(m.layers * m.linear_parameters());
  const StageMemory with_copies = estimate_memory(copies).front();
  const StageMemory fp8_only = estimate_memory(params).front();
  CHECK(item_bytes(with_copies, "fp8_weight_copies") == Approx(2.0 * linear));
  CHECK(item_bytes(fp8_only, "weights") == Approx(item_bytes(with_copies, "weights") - linear));
  for (const auto& use : fp8_only.items) CHECK(use.name != "fp8_weight_copies");
  const PassShape shape = plan_shape(params);
  op_named(backward_ops(shape), "layer0.qkv.weight.fp8_transpose");
  op_named(backward_ops(shape), "layer0.mlp_down.weight.fp8_transpose");
  CHECK_FALSE(has_op(backward_ops(plan_shape(copies)), "layer0.qkv.weight.fp8_transpose"));
  // The forward input cast no longer casts the weight.
  const double cast_copies = op_named(forward_ops(plan_shape(copies)), "layer0.qkv.fp8_cast").work.memory_bytes;
  const double cast_params = op_named(forward_ops(shape), "layer0.qkv.fp8_cast").work.memory_bytes;
  CHECK(cast_params < cast_copies);
}

// A base linear without adapters keeps no input for a weight gradient; with
// FP8_ACT the SwiGLU's gate and up are kept in fp8.
TEST_CASE("LoRA keeps no inputs of frozen linears without adapters, fp8 activation inputs halve",
          "[finetune][memory]") {
  const std::string base = kLlama7b + "  precision: fp8\n";
  const auto activations = [&](const std::string& extra) {
    return item_bytes(estimate_memory(workload(base + extra)).front(), "activations");
  };
  const WorkloadSpec spec = workload(base);
  const double h = static_cast<double>(spec.model.hidden), ffn = static_cast<double>(spec.model.ffn);
  const double sbh = 4096.0 * h;  // micro-batch 1 x seq 4096 x hidden
  const double layers = static_cast<double>(spec.model.layers);
  const double all4 = activations("  finetune: {method: lora, rank: 16}\n");
  const double attention_only = activations("  finetune: {method: lora, rank: 16, targets: [qkv, proj]}\n");
  // MLP up's and down's fp8 inputs (1 B, hidden and ffn wide) go.
  CHECK(all4 - attention_only == Approx(layers * sbh * (1.0 + ffn / h)));
  const double fp8_act = activations("  fp8: {activation_input: true}\n  finetune: {method: lora, rank: 16}\n");
  CHECK(all4 - fp8_act == Approx(layers * sbh * 2.0 * ffn / h));
}

TEST_CASE("fp8 parameters with sharded weights are refused naming param_all_gather", "[finetune][fp8][errors]") {
  CHECK_THAT(rejection(kLlama7b + "  precision: fp8\n  strategy: fsdp\n  fp8: {params: true}\n"),
             Catch::Contains("workload.fp8.params") && Catch::Contains("param_all_gather"));
  CHECK_THAT(rejection(kLlama7b + "  fp8: {params: true}\n"), Catch::Contains("precision: fp8"));
}
