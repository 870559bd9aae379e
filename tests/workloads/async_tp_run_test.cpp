// torchtitan's AsyncTP (torch.compile's micro-pipelined TP on symmetric
// memory, workloads/tp_overlap.hpp) judged on replayed steps: Llama 3 8B at
// TP 8 with sequence parallelism on one DGX H100, with and without it.
// Micro-batch 8, so the GPU bounds the step: at 2 the host's issue time
// for AsyncTP's many small ops (54 us each, frameworks.yaml) would.
// Without the mechanism every block's all-gathers and reduce-scatters sit
// exposed between its GEMMs; with it the GEMMs run in TP row chunks beside
// copy-engine transfers, paying for a copy into the symmetric buffer before
// each gather and a sum of the partial shards after each reduce-scatter.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "op_named.hpp"
#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"

using namespace simctl;

namespace async_tp_test {

testing::PlanRun run_llama_tp8(bool async_tp, const std::string& model = "llama3-8b") {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_async_tp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (model + (async_tp ? "_on.yaml" : "_off.yaml"));
  std::ofstream(file) << "name: AsyncTP test\nsystem: " << testing::config_path("configs/systems/dgx_h100.yaml")
                      << "\nworkload:\n  model: " << model << "\n  framework: torchtitan\n  compile: true\n"
                      << "  parallel: {data: 1, tensor: 8, sequence: true, async_tp: " << (async_tp ? "true" : "false")
                      << "}\n  micro_batch: 8\n  global_batch: 8\n  activation_recompute: full\n";
  return testing::run_scenario(load_scenario(file.string()));
}

TimeBreakdown async_rank0_breakdown(const testing::PlanRun& run) {
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  return rank_breakdown(run.scenario.trace, run.result, rendezvous, 0);
}

std::size_t async_op_index(const testing::PlanRun& run, const std::string& name) {
  return testing::trace_op_index(run.scenario.trace, 0, name);
}

bool async_has_op(const testing::PlanRun& run, const std::string& name) {
  return testing::trace_op_named(run.scenario.trace, 0, name) != nullptr;
}

}  // namespace async_tp_test

using namespace async_tp_test;

TEST_CASE("AsyncTP on a DGX H100: the TP collectives hide under GEMM chunks, at a memory-bound cost",
          "[plans][async_tp]") {
  const testing::PlanRun off = run_llama_tp8(false);
  const testing::PlanRun on = run_llama_tp8(true);
  const auto b_off = async_rank0_breakdown(off);
  const auto b_on = async_rank0_breakdown(on);
  const TimePs tp_off = b_off[Category::comm_tensor];
  const TimePs tp_on = b_on[Category::comm_tensor];
  INFO("exposed TP " << ps_to_seconds(tp_off) * 1e3 << " -> " << ps_to_seconds(tp_on) * 1e3 << " ms; memory-bound "
                     << ps_to_seconds(b_off[Category::compute_memory_bound]) * 1e3 << " -> "
                     << ps_to_seconds(b_on[Category::compute_memory_bound]) * 1e3 << " ms; step " << off.step_s() * 1e3
                     << " -> " << on.step_s() * 1e3 << " ms");
  REQUIRE(tp_off > 0);
  // What stays exposed: the backward's reduce-scatters of the qkv and
  // mlp_up input gradients, which Inductor cannot fuse (each sums several
  // matmuls' outputs; the test below), attn_out's first shard transfer,
  // which outlasts its thin GEMM chunk, and the LM head's plain collectives
  // (the head is not compiled with the blocks).
  CHECK(tp_on < tp_off / 2);
  // The symmetric-buffer copies and the partial sums are memory-bound work
  // the plain collectives did not need. Both pay for torchtitan's
  // batch-first layout too (frameworks.yaml, tp_sequence_dim_copies): the
  // plain path a copy per collective, AsyncTP one per gathered tensor a
  // weight gradient reads; set those apart.
  const auto layout_copies = [](const testing::PlanRun& run) {
    TimePs total = 0;
    const auto& ops = run.scenario.trace.ops(0);
    const auto& timings = run.result.timeline(0).ops;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      const std::string& name = ops[i].name;
      if (name.ends_with(".chunk_cat") || name.ends_with(".input.contiguous") || name.ends_with(".grad.contiguous"))
        total += timings[i].end - timings[i].start;
    }
    return total;
  };
  REQUIRE(layout_copies(off) > 0);
  REQUIRE(layout_copies(on) > 0);
  CHECK(b_on[Category::compute_memory_bound] - layout_copies(on) >
        b_off[Category::compute_memory_bound] - layout_copies(off));
  CHECK(on.step_s() < off.step_s());
}

TEST_CASE("AsyncTP: the gather copies the rank's shard first, and each reduce-scatter chunk leaves as it completes",
          "[plans][async_tp]") {
  const testing::PlanRun on = run_llama_tp8(true);
  const auto& ops = on.scenario.trace.ops(0);
  const auto& timings = on.result.timeline(0).ops;

  // Gather: own shard into the symmetric buffer, then 7 transfers beside 8
  // chunks that keep every SM.
  const std::size_t copy = async_op_index(on, "mb0.layer3.attn.all_gather.to_symmetric");
  const std::size_t first_send = async_op_index(on, "mb0.layer3.attn.all_gather.step1.send");
  CHECK(timings[first_send].start >= timings[copy].end);
  const auto& shard = std::get<PeerTransfer>(ops[first_send].work);
  CHECK(std::get<ComputeWork>(ops[copy].work).memory_bytes == Approx(2.0 * shard.bytes));
  for (int c = 0; c < 8; ++c) {
    const auto& chunk = ops[async_op_index(on, "mb0.layer3.qkv.chunk" + std::to_string(c))];
    CHECK(std::get<ComputeWork>(chunk.work).comm_sms == 0);
  }

  // Reduce-scatter: chunk c's rows go to their owner once chunk c is done;
  // the sum of the 8 partial shards waits for every transfer.
  const std::size_t sum = async_op_index(on, "mb0.layer3.mlp.reduce.sum_partials");
  for (int step = 1; step < 8; ++step) {
    const std::size_t chunk = async_op_index(on, "mb0.layer3.mlp_down.chunk" + std::to_string(step - 1));
    const std::size_t send = async_op_index(on, "mb0.layer3.mlp.reduce.step" + std::to_string(step) + ".send");
    const std::size_t receive = async_op_index(on, "mb0.layer3.mlp.reduce.step" + std::to_string(step));
    CHECK(timings[send].start >= timings[chunk].end);
    CHECK(timings[sum].start >= timings[receive].end);
    CHECK(ops[receive].stream == Stream::overlap);
  }
  const auto& partial = std::get<PeerTransfer>(ops[async_op_index(on, "mb0.layer3.mlp.reduce.step1")].work);
  CHECK(std::get<ComputeWork>(ops[sum].work).memory_bytes == Approx(9.0 * partial.bytes));
  CHECK(timings[sum].start >= timings[async_op_index(on, "mb0.layer3.mlp_down.chunk7")].end);
}

TEST_CASE(
    "AsyncTP: the column-parallel backward reads the saved gathered input, and fuses its reduce-scatter only "
    "where one matmul feeds it",
    "[plans][async_tp]") {
  const testing::PlanRun off = run_llama_tp8(false);
  const testing::PlanRun on = run_llama_tp8(true);
  // Megatron's backward gathers the input again for the weight gradient
  // (the last test); torch saved the gathered one, with or without AsyncTP.
  CHECK_FALSE(async_has_op(off, "mb0.layer3.qkv.input.all_gather"));
  CHECK_FALSE(async_has_op(on, "mb0.layer3.qkv.input.all_gather"));
  // The attention's input gradient sums wq's, wk's and wv's, the gated MLP's
  // w1's and w3's: Inductor finds no producer matmul, so a plain
  // reduce-scatter follows the layer's GEMMs and the next op waits on it.
  for (const std::string layer : {"qkv", "mlp_up"}) {
    INFO(layer);
    CHECK_FALSE(async_has_op(on, "mb0.layer3." + layer + ".dgrad.chunk7"));
    const auto& ops = on.scenario.trace.ops(0);
    const std::size_t reduce = async_op_index(on, "mb0.layer3." + layer + ".dgrad.reduce");
    CHECK(std::holds_alternative<CollectiveCall>(ops[reduce].work));
    CHECK(reduce > async_op_index(on, "mb0.layer3." + layer + ".wgrad"));
  }
  // A GPT's one fc1 matmul feeds its input gradient: fused, its wgrad after.
  const testing::PlanRun gpt = run_llama_tp8(true, "gpt-1.3b");
  CHECK(async_has_op(gpt, "mb0.layer3.mlp_up.dgrad.chunk7"));
  const std::size_t sum = async_op_index(gpt, "mb0.layer3.mlp_up.dgrad.reduce.sum_partials");
  CHECK(async_op_index(gpt, "mb0.layer3.mlp_up.wgrad") > sum);
  CHECK_FALSE(async_has_op(gpt, "mb0.layer3.qkv.dgrad.chunk7"));
  // The recompute's gathers are fused too; the LM head's are not.
  CHECK(async_has_op(on, "mb0.layer3.recompute.attn.all_gather.to_symmetric"));
}

namespace async_tp_test {

// Llama 3 8B at TP 8 with SP under `framework`, traced but not replayed.
Scenario load_tp8(const std::string& framework) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_dtensor_tp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (framework + ".yaml");
  std::ofstream(file) << "name: DTensor TP test\nsystem: " << testing::config_path("configs/systems/dgx_h100.yaml")
                      << "\nworkload:\n  model: llama3-8b\n  framework: " << framework
                      << "\n  parallel: {data: 1, tensor: 8, sequence: true}\n  micro_batch: 1\n  global_batch: 1\n";
  return load_scenario(file.string());
}

}  // namespace async_tp_test

TEST_CASE("torchtitan's plain TP is DTensor's: the gathered input saved, the input gradient reduced after both GEMMs",
          "[plans][async_tp]") {
  const Scenario megatron = load_tp8("megatron-lm");
  const Scenario titan = load_tp8("torchtitan");
  for (const std::string layer : {"mb0.layer3.qkv", "mb0.layer3.mlp_up"}) {
    INFO(layer);
    // Megatron saves the input's sequence shard and gathers it again beside
    // the dgrad GEMM; the input gradient's reduce-scatter runs beside the
    // wgrad GEMM.
    CHECK(testing::trace_op_named(megatron.trace, 0, layer + ".input.all_gather"));
    CHECK(testing::trace_op_index(megatron.trace, 0, layer + ".dgrad.reduce") <
          testing::trace_op_index(megatron.trace, 0, layer + ".wgrad"));
    // DTensor: autograd saved the gathered input; the redistribute's
    // backward reduce-scatters once both matmuls have run, and the next op
    // waits on it.
    CHECK_FALSE(testing::trace_op_named(titan.trace, 0, layer + ".input.all_gather"));
    const std::size_t reduce = testing::trace_op_index(titan.trace, 0, layer + ".dgrad.reduce");
    CHECK(reduce > testing::trace_op_index(titan.trace, 0, layer + ".wgrad"));
    const auto& next = titan.trace.ops(0)[reduce + 1];
    CHECK(std::find(next.deps.begin(), next.deps.end(), reduce) != next.deps.end());
  }
}
