// PyTorch's context-parallel SDPA as torchtitan runs it
// (`context_algorithm: torch_all_gather`, workloads/context_attention.cpp)
// against the generic `all_gather`: the same load-balanced attention, but K
// and V gathered at the query heads' width (torchtitan expands them before
// SDPA) in both passes, outputs merged in fp32, and dK/dV passed round the
// CP ring in fp32. A GQA model (16 heads, 4 K/V heads) at TP 2 x CP 4 on
// one DGX H100 makes the expansion a factor of 4.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "op_named.hpp"
#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"

using namespace simctl;

namespace torch_cp_test {

testing::PlanRun run_cp(const std::string& algorithm) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_torch_cp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (algorithm + ".yaml");
  std::ofstream(file) << "name: torch CP test\nsystem: " << testing::config_path("configs/systems/dgx_h100.yaml")
                      << "\nworkload:\n"
                      << "  model: {layers: 2, hidden: 2048, heads: 16, kv_heads: 4, ffn: 5632, vocab: 32000,\n"
                      << "          seq_len: 16384, gated_mlp: true, norm: rmsnorm, position: rope, bias: false,\n"
                      << "          tied_embeddings: false}\n"
                      << "  parallel: {tensor: 2, context: 4, context_algorithm: " << algorithm << ", sequence: true}\n"
                      << "  micro_batch: 1\n  global_batch: 1\n  attention: flash2\n";
  return testing::run_scenario(load_scenario(file.string()));
}

const Op& op_named(const testing::PlanRun& run, const std::string& name) {
  const Op* op = testing::trace_op_named(run.scenario.trace, 0, name);
  REQUIRE(op);
  return *op;
}

int count_prefixed(const testing::PlanRun& run, const std::string& prefix) {
  const auto& ops = run.scenario.trace.ops(0);
  return static_cast<int>(
      std::count_if(ops.begin(), ops.end(), [&](const Op& op) { return op.name.rfind(prefix, 0) == 0; }));
}

}  // namespace torch_cp_test

using namespace torch_cp_test;

TEST_CASE("torch_all_gather gathers K and V at the query heads' width and rings dK/dV in fp32",
          "[plans][context][torch_cp]") {
  const testing::PlanRun generic = run_cp("all_gather");
  const testing::PlanRun torch = run_cp("torch_all_gather");
  const double generic_gather =
      std::get<CollectiveCall>(op_named(generic, "mb0.layer1.attention.kv.all_gather").work).bytes;
  const double torch_gather =
      std::get<CollectiveCall>(op_named(torch, "mb0.layer1.attention.kv.all_gather").work).bytes;
  // 16 query heads over 4 K/V heads: repeat_kv's factor.
  CHECK(torch_gather == Approx(4.0 * generic_gather));
  // Gathered again in the backward, not reduce-scattered after it.
  CHECK(std::get<CollectiveCall>(op_named(torch, "mb0.layer1.attention.bwd.kv.all_gather").work).bytes ==
        Approx(torch_gather));
  CHECK(count_prefixed(torch, "mb0.layer1.attention.bwd.dkv.reduce_scatter") == 0);
  // Four SDPA calls a pass, each merged; four dK/dV hops of the rank's own
  // quarter of the expanded K/V, in fp32 (twice the bf16 bytes).
  CHECK(count_prefixed(torch, "mb0.layer1.attention.step") == 4);
  CHECK(count_prefixed(torch, "mb0.layer1.attention.merge.step") == 4);
  const auto& hop = std::get<PeerTransfer>(op_named(torch, "mb0.layer1.attention.bwd.dkv.step1").work);
  CHECK(hop.bytes == Approx(2.0 * torch_gather / 4.0));
  CHECK(count_prefixed(torch, "mb0.layer1.attention.bwd.dkv.step") == 2 * 4);  // a send and a receive each
}

TEST_CASE("torch_all_gather's fp32 merges and accumulations cost memory-bound time the generic gather does not",
          "[plans][context][torch_cp]") {
  const testing::PlanRun generic = run_cp("all_gather");
  const testing::PlanRun torch = run_cp("torch_all_gather");
  const auto breakdown = [](const testing::PlanRun& run) {
    const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
    return rank_breakdown(run.scenario.trace, run.result, rendezvous, 0);
  };
  const TimePs memory_generic = breakdown(generic)[Category::compute_memory_bound];
  const TimePs memory_torch = breakdown(torch)[Category::compute_memory_bound];
  INFO("memory-bound " << ps_to_seconds(memory_generic) * 1e3 << " -> " << ps_to_seconds(memory_torch) * 1e3
                       << " ms; step " << generic.step_s() * 1e3 << " -> " << torch.step_s() * 1e3 << " ms");
  CHECK(memory_torch > memory_generic);
  CHECK(torch.step_s() > generic.step_s());
}
