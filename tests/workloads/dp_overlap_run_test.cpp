// Megatron-Core's distributed optimizer with --overlap-param-gather
// (ddp.overlap_param_gather, workloads/data_parallel_sync.hpp) judged on
// replayed steps: GPT 22B at TP 8 + SP on 4 DGX H100 nodes, ZeRO-1 over the 4
// replicas. Without it the updated weights are all-gathered at once after
// the optimizer, fully exposed; with it they are gathered bucket by bucket
// under the first micro-batch's forward.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "config_rejection.hpp"
#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"

using namespace simctl;

namespace {

// 4 replicas of TP 8 (one node each), or 2 replicas of TP 8 x PP 2.
// `micro_batch` 8 makes the first forward (~0.13 s) longer than the 5.5 GB
// weight gather (~0.09 s over 400 Gb/s rails), so it can hide it.
std::string zero1_config(bool overlap, std::int64_t pipeline) {
  const std::int64_t data = 4 / pipeline;
  const std::int64_t micro_batch = pipeline > 1 ? 1 : 8;
  const std::int64_t micro_batches = pipeline > 1 ? 16 : 4;
  return "name: ZeRO-1 param gather overlap test\nsystem: " +
         testing::config_path("configs/systems/dgx_h100_x4_ndr.yaml") +
         "\nworkload:\n"
         "  model: megatron-gpt-22b\n"
         "  parallel: {data: " +
         std::to_string(data) + ", tensor: 8, pipeline: " + std::to_string(pipeline) +
         ", sequence: true}\n"
         "  strategy: zero1\n"
         "  micro_batch: " +
         std::to_string(micro_batch) + "\n  global_batch: " + std::to_string(data * micro_batch * micro_batches) +
         "\n  precision: bf16\n"
         "  activation_recompute: selective\n"
         "  ddp: {overlap: true, overlap_param_gather: " +
         (overlap ? "true" : "false") + "}\n";
}

testing::PlanRun run_zero1(bool overlap, std::int64_t pipeline = 1) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_dp_overlap_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / ((overlap ? "on_pp" : "off_pp") + std::to_string(pipeline) + ".yaml");
  std::ofstream(file) << zero1_config(overlap, pipeline);
  return testing::run_scenario(load_scenario(file.string()));
}

// All exposed communication: while the gathers run beside the forward's
// exposed TP collectives, the breakdown books those stretches to data
// parallelism (the first category in force), so only the sum is comparable.
TimePs exposed_communication(const testing::PlanRun& run) {
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  return rank_breakdown(run.scenario.trace, run.result, rendezvous, 0).exposed_communication();
}

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

}  // namespace

TEST_CASE("ZeRO-1: overlap_param_gather hides the weight all-gather under the first forward", "[plans][dp_overlap]") {
  const testing::PlanRun off = run_zero1(false);
  const testing::PlanRun on = run_zero1(true);
  const auto& off_ops = off.scenario.trace.ops(0);
  const auto gather =
      std::find_if(off_ops.begin(), off_ops.end(), [](const Op& op) { return op.name == "weights.all_gather"; });
  REQUIRE(gather != off_ops.end());
  const OpTiming& g = off.result.timeline(0).ops[static_cast<std::size_t>(gather - off_ops.begin())];
  const TimePs gather_time = g.end - g.start;
  const TimePs exposed_off = exposed_communication(off);
  const TimePs exposed_on = exposed_communication(on);
  INFO("weights all-gather " << ps_to_seconds(gather_time) * 1e3 << " ms; exposed communication "
                             << ps_to_seconds(exposed_off) * 1e3 << " ms -> " << ps_to_seconds(exposed_on) * 1e3
                             << " ms; step " << off.step_s() * 1e3 << " -> " << on.step_s() * 1e3 << " ms");
  REQUIRE(gather_time > 0);
  // At least 80 % of the after-optimizer gather disappears from the exposed time.
  CHECK(exposed_off - exposed_on > gather_time * 8 / 10);
  CHECK(on.step_s() < off.step_s() - 0.8 * ps_to_seconds(gather_time));

  // The gathers run per bucket on the prefetch stream; none after the optimizer.
  int buckets = 0;
  for (const Op& op : on.scenario.trace.ops(0)) {
    CHECK(op.name != "weights.all_gather");
    if (starts_with(op.name, "weights.all_gather.bucket")) {
      ++buckets;
      CHECK(op.stream == Stream::prefetch);
      CHECK(op.deps.empty());
    }
  }
  CHECK(buckets > 1);
}

TEST_CASE("ZeRO-1 with a pipeline: only the first micro-batch's forward waits for the gathered weights",
          "[plans][dp_overlap]") {
  const testing::PlanRun on = run_zero1(true, 2);
  for (std::uint32_t rank : {0u, 8u}) {  // a rank of each pipeline stage
    const auto& ops = on.scenario.trace.ops(rank);
    std::vector<bool> gather(ops.size(), false);
    int waiting = 0;
    for (std::size_t i = 0; i < ops.size(); ++i) {
      gather[i] = starts_with(ops[i].name, "weights.all_gather.bucket");
      for (OpIndex d : ops[i].deps) {
        if (!gather[d]) continue;
        INFO("rank " << rank << ": " << ops[i].name << " waits for " << ops[d].name);
        CHECK(starts_with(ops[i].name, "mb0."));
        CHECK(ops[i].phase == OpPhase::forward);
        ++waiting;
      }
    }
    CHECK(waiting > 0);
  }
}

namespace dp_stream_test_detail {

// TP 8 + SP x DP 4 on 4 DGX H100 nodes, ZeRO-2: each micro-batch's gradients
// are reduce-scattered per unit while the backward goes on, beside its TP
// collectives.
std::string zero2_config() {
  return "name: ZeRO-2 beside TP test\nsystem: " + testing::config_path("configs/systems/dgx_h100_x4_ndr.yaml") +
         "\nworkload:\n"
         "  model: megatron-gpt-22b\n"
         "  parallel: {data: 4, tensor: 8, sequence: true}\n"
         "  strategy: zero2\n"
         "  micro_batch: 1\n  global_batch: 16\n"
         "  precision: bf16\n"
         "  activation_recompute: selective\n";
}

bool collective_of(const Op& op, CommDimension dimension) {
  const auto* call = std::get_if<CollectiveCall>(&op.work);
  return call && call->dimension == dimension;
}

}  // namespace dp_stream_test_detail

TEST_CASE("a tensor-parallel collective never queues behind a data-parallel one", "[plans][dp_overlap][streams]") {
  using namespace dp_stream_test_detail;
  const testing::PlanRun run =
      testing::run_scenario(load_scenario(testing::write_test_config("simctl_dp_stream", "zero2", zero2_config())));
  const auto& ops = run.scenario.trace.ops(0);
  const auto& timing = run.result.timeline(0).ops;
  int tensor = 0, data = 0, queued = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    data += collective_of(ops[i], CommDimension::data) ? 1 : 0;
    if (!collective_of(ops[i], CommDimension::tensor)) continue;
    ++tensor;
    TimePs ready = 0;
    for (OpIndex d : ops[i].deps) ready = std::max(ready, timing[d].end);
    // Started later than its inputs were ready, when a data-parallel
    // collective before it on its stream ended: it queued behind that one.
    for (std::size_t j = i; j-- > 0;) {
      if (ops[j].stream != ops[i].stream) continue;
      if (collective_of(ops[j], CommDimension::data) && timing[j].end == timing[i].start && timing[i].start > ready) {
        INFO(ops[i].name << " waited for " << ops[j].name);
        CHECK(false);
        ++queued;
      }
      break;
    }
  }
  CHECK(tensor > 100);
  CHECK(data > 10);  // per micro-batch reduce-scatters, running under the backward
  CHECK(queued == 0);
}
