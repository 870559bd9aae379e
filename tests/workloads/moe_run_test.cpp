// The shipped Mixtral 8x7B config (EP 8 inside each of 4 DGX H100 nodes)
// runs end to end, and its token all-to-alls show as exposed expert-parallel
// communication.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"

using namespace simctl;

TEST_CASE("Mixtral 8x7B EP8 step exposes its token all-to-alls", "[plans][moe]") {
  const testing::PlanRun run = testing::run_config("configs/dgx_h100x4_mixtral_8x7b_ep8.yaml");
  const auto& w = run.scenario.workload;
  REQUIRE(w.model.moe());
  REQUIRE(w.parallel.expert == 8);
  REQUIRE(run.step_s() > 0.0);
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  const TimeBreakdown rank0 = rank_breakdown(run.scenario.trace, run.result, rendezvous, 0);
  const double expert_s = ps_to_seconds(rank0[Category::comm_expert]);
  // A lower bound from the hardware: each all-to-all sends 7/8 of
  // 32768 tokens x 2 copies x 4096 x 2 B = 537 MB from every GPU, over at
  // most NVLink 4's 450 GB/s per direction. The forward's 2 per layer, and
  // their re-run under full recomputation, have nothing to hide behind (the
  // experts wait for the dispatch, the residual for the combine):
  // 32 layers x 2 x 2 x 1.04 ms.
  const double bytes = 7.0 / 8.0 * 32768.0 * 2 * 4096 * 2;
  CHECK(expert_s > 32 * 2 * 2 * bytes / 450e9);
  CHECK(expert_s < 0.25 * run.step_s());
  // Model FLOPs count the 12.9 B active parameters, so MFU stays in the
  // range of dense models on H100 (30-60 % for well-tuned runs).
  constexpr double kH100DenseBf16FlopsPerS = 989e12;
  const double mfu = run.scenario.trace.totals.model_flops / 32.0 / run.step_s() / kH100DenseBf16FlopsPerS;
  CHECK(mfu > 0.3);
  CHECK(mfu < 0.7);
}

// With expert = data, a stage's EP group has exactly its DP group's ranks.
// They are still two communicators, each with its own order of calls: the
// replay used to merge them by membership and crash (under PP 2 or TP 2).
TEST_CASE("an EP group with the DP group's ranks is its own communicator", "[plans][moe]") {
  const std::string config = testing::config_path("configs/systems/dgx_h100.yaml");
  const std::string path =
      (std::filesystem::temp_directory_path() / ("simctl_moe_ep_equals_dp_" + std::to_string(::getpid()) + ".yaml"))
          .string();
  std::ofstream(path) << "system: " << config << "\n"
                      << "workload:\n"
                         "  model: {layers: 4, hidden: 1024, heads: 8, vocab: 32000, seq_len: 1024, ffn: 2048,\n"
                         "          experts: 4, experts_per_token: 2}\n"
                         "  parallel: {data: 4, pipeline: 2, expert: 4}\n"
                         "  micro_batch: 1\n"
                         "  global_batch: 8\n";
  const testing::PlanRun run = testing::run_scenario(load_scenario(path));
  const Trace& trace = run.scenario.trace;
  const RankTrace& rank0 = trace.ranks[0];
  REQUIRE(rank0.groups.size() >= 3);
  CHECK(trace.groups[rank0.groups[1]] == trace.groups[rank0.groups[2]]);  // DP and EP: the same ranks
  CHECK(rank0.groups[1] != rank0.groups[2]);                              // yet two groups
  CHECK(run.step_s() > 0.0);
}
