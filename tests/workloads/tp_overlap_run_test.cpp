// Megatron-Core's TP communication overlap (Transformer Engine userbuffers,
// workloads/tp_overlap.hpp) judged on replayed steps: GPT 22B at TP 8 with
// sequence parallelism on one DGX H100, with and without tp_comm_overlap.
// Without the mechanism the TP all-gathers and reduce-scatters sit exposed
// between the GEMMs and the GEMMs run on every SM; with it most of the TP
// time hides under the GEMM chunks, and the GEMMs beside the pipelined
// reduce-scatters lose the 16 SMs the communication kernels hold.
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "models/devices/compute_model.hpp"
#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"
#include "workloads/tp_overlap.hpp"

using namespace simctl;

namespace {

std::string tp8_config(bool overlap, const std::string& precision = "bf16") {
  return std::string(R"(name: TP8 overlap test
system: )") +
         testing::config_path("configs/systems/dgx_h100.yaml") + R"(
workload:
  model: megatron-gpt-22b
  parallel: {data: 1, tensor: 8, sequence: true, tp_comm_overlap: )" +
         (overlap ? "true" : "false") + R"(}
  micro_batch: 4
  global_batch: 4
  activation_recompute: selective
  precision: )" +
         precision + R"(
)";
}

testing::PlanRun run_tp8(bool overlap, const std::string& precision = "bf16") {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_tp_overlap_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / ((overlap ? "on_" : "off_") + precision + ".yaml");
  std::ofstream(file) << tp8_config(overlap, precision);
  return testing::run_scenario(load_scenario(file.string()));
}

struct OpTimes {
  TimePs total = 0;
  int count = 0;
};

// Summed kernel time of rank 0's ops whose name is `name` or `name`.chunkN.
OpTimes gemm_time(const testing::PlanRun& run, const std::string& name) {
  const auto& ops = run.scenario.trace.ops(0);
  const auto& timings = run.result.timeline(0).ops;
  OpTimes t;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name == name || ops[i].name.rfind(name + ".chunk", 0) == 0) {
      t.total += timings[i].end - timings[i].start;
      ++t.count;
    }
  }
  return t;
}

TimePs exposed_tensor(const testing::PlanRun& run) {
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  return rank_breakdown(run.scenario.trace, run.result, rendezvous, 0)[Category::comm_tensor];
}

}  // namespace

TEST_CASE("TP 8 + SP on a DGX H100: userbuffers overlap hides most TP communication", "[plans][tp_overlap]") {
  const testing::PlanRun off = run_tp8(false);
  const testing::PlanRun on = run_tp8(true);
  const TimePs exposed_off = exposed_tensor(off);
  const TimePs exposed_on = exposed_tensor(on);
  INFO("exposed TP communication: " << ps_to_seconds(exposed_off) * 1e3 << " ms without overlap, "
                                    << ps_to_seconds(exposed_on) * 1e3 << " ms with; step " << off.step_s() * 1e3
                                    << " ms -> " << on.step_s() * 1e3 << " ms");
  REQUIRE(exposed_off > 0);
  // What stays exposed, under 40 % of the plain TP time (about 32 %): the
  // last reduce-scatter chunk of each pipelined GEMM; the attention
  // projection's pipelined reduce-scatter, whose chunks (~94 us each at
  // 25 MB) outlast its small GEMM chunks (~33 us); the attention projection's
  // dgrad chunks (~17 us) under their ring steps; and the LM head's and
  // embedding's plain collectives (not TE layers).
  CHECK(exposed_on < exposed_off * 4 / 10);
  CHECK(on.step_s() < off.step_s());
}

TEST_CASE("TP overlap: the GEMM beside the pipelined reduce-scatter runs on 116 of 132 SMs", "[plans][tp_overlap]") {
  const testing::PlanRun off = run_tp8(false);
  const testing::PlanRun on = run_tp8(true);
  const OpTimes plain = gemm_time(off, "mb0.layer0.mlp_down");
  const OpTimes chunked = gemm_time(on, "mb0.layer0.mlp_down");
  REQUIRE(plain.count == 1);
  REQUIRE(chunked.count == kUserbuffersPipelineSplits);
  const double slowdown = static_cast<double>(chunked.total) / static_cast<double>(plain.total);
  INFO("mlp_down: " << ps_to_seconds(plain.total) * 1e6 << " us on all SMs, " << ps_to_seconds(chunked.total) * 1e6
                    << " us in chunks beside the reduce-scatter (x" << slowdown << ")");
  // 132 / (132 - 16) = 1.138; chunking adds a little wave quantisation.
  CHECK(slowdown > 1.10);
  CHECK(slowdown < 1.25);

  // The chunk itself, priced with and without the SMs taken.
  const auto& ops = on.scenario.trace.ops(0);
  const auto chunk =
      std::find_if(ops.begin(), ops.end(), [](const Op& op) { return op.name == "mb0.layer0.mlp_down.chunk0"; });
  REQUIRE(chunk != ops.end());
  ComputeWork work = std::get<ComputeWork>(chunk->work);
  CHECK(work.comm_sms == kUserbuffersCommSms);
  const GpuSpec& h100 = on.scenario.catalogue.gpu("h100-sxm");
  const TimePs shared = estimate_compute(h100, work).time;
  work.comm_sms = 0;
  const TimePs alone = estimate_compute(h100, work).time;
  CHECK(static_cast<double>(shared) / static_cast<double>(alone) == Approx(132.0 / 116.0).epsilon(0.04));
}

TEST_CASE("TP overlap: the ring-exchange GEMM keeps every SM and starts on the rank's own shard",
          "[plans][tp_overlap]") {
  const testing::PlanRun on = run_tp8(true);
  const auto& ops = on.scenario.trace.ops(0);
  const auto& timings = on.result.timeline(0).ops;
  int chunks = 0, steps = 0;
  TimePs ln1_end = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (ops[i].name == "mb0.layer3.ln1") ln1_end = timings[i].end;
    if (ops[i].name.rfind("mb0.layer3.qkv.chunk", 0) == 0) {
      ++chunks;
      CHECK(std::get<ComputeWork>(ops[i].work).comm_sms == 0);  // copy engines move the shards
    }
    if (ops[i].name.rfind("mb0.layer3.attn.all_gather.step", 0) == 0) {
      // A receive from the previous TP rank on the overlap stream, or its
      // send to the next on the overlap send stream.
      const auto& t = std::get<PeerTransfer>(ops[i].work);
      const bool send = t.side == PeerTransfer::Side::send;
      if (!send) ++steps;
      CHECK(ops[i].stream == (send ? Stream::overlap_send : Stream::overlap));
      CHECK(t.dimension == CommDimension::tensor);
    }
    if (ops[i].name == "mb0.layer3.qkv.chunk0") {
      // Chunk 0 runs right after ln1, not after any exchange step.
      CHECK(timings[i].start == ln1_end);
    }
  }
  CHECK(chunks == 8);
  CHECK(steps == 7);
}

TEST_CASE("TP overlap: one host call issues a layer's chunks and ring steps, so the host pays once",
          "[plans][tp_overlap][host_issue]") {
  const testing::PlanRun on = run_tp8(true);  // megatron-lm by default: an eager host, 54 us an op
  REQUIRE(on.scenario.trace.host_issue_seconds_per_op > 0.0);
  int issued = 0, riding = 0;
  for (const Op& op : on.scenario.trace.ops(0)) {
    const bool ring = op.name.rfind("mb0.layer3.attn.all_gather.step", 0) == 0;
    const bool chunk = op.name.rfind("mb0.layer3.qkv.chunk", 0) == 0;
    if (!ring && !chunk) continue;
    // The first exchange step (its send and receive) is the layer's call.
    const bool first = op.name.rfind("mb0.layer3.attn.all_gather.step1", 0) == 0;
    INFO(op.name);
    CHECK(op.host_issued == first);
    (op.host_issued ? issued : riding) += 1;
  }
  CHECK(issued == 2);
  CHECK(riding == 6 * 2 + 8);
  // The pipelined reduce-scatter's chunks ride on its first GEMM chunk.
  for (const Op& op : on.scenario.trace.ops(0)) {
    if (op.name.rfind("mb0.layer3.mlp_down.chunk", 0) != 0) continue;
    INFO(op.name);
    CHECK(op.host_issued == (op.name == "mb0.layer3.mlp_down.chunk0"));
  }
}

// Under FP8, TE's userbuffers hold fp8: each rank casts its own rows, the
// ring moves fp8 shards (half the bf16 bytes) and the chunks are fp8 GEMMs.
TEST_CASE("TP overlap under fp8: fp8 chunks fed by a ring of fp8 shards, and the TP time still hides",
          "[plans][tp_overlap][fp8]") {
  const testing::PlanRun off = run_tp8(false, "fp8");
  const testing::PlanRun on = run_tp8(true, "fp8");
  const testing::PlanRun bf16 = run_tp8(true);
  const auto& ops = on.scenario.trace.ops(0);
  auto find = [](const std::vector<Op>& list, const std::string& name) {
    const auto it = std::find_if(list.begin(), list.end(), [&](const Op& op) { return op.name == name; });
    REQUIRE(it != list.end());
    return it;
  };
  CHECK(std::get<ComputeWork>(find(ops, "mb0.layer3.qkv.chunk0")->work).dtype == DType::fp8);
  CHECK(std::get<ComputeWork>(find(ops, "mb0.layer3.mlp_down.chunk0")->work).dtype == DType::fp8);
  CHECK(std::get<ComputeWork>(find(ops, "mb0.layer3.mlp_down.dgrad.chunk0")->work).dtype == DType::fp8);
  // The cast runs before the ring, over this rank's s/8 rows only.
  const auto cast = find(ops, "mb0.layer3.qkv.fp8_cast");
  const auto first_step = find(ops, "mb0.layer3.attn.all_gather.step1");
  CHECK(cast < first_step);
  const double fp8_shard = std::get<PeerTransfer>(first_step->work).bytes;
  const double bf16_shard =
      std::get<PeerTransfer>(find(bf16.scenario.trace.ops(0), "mb0.layer3.attn.all_gather.step1")->work).bytes;
  CHECK(fp8_shard == Approx(bf16_shard / 2));
  CHECK(std::get<PeerTransfer>(find(ops, "mb0.layer3.mlp_down.grad.all_gather.step1")->work).bytes ==
        Approx(bf16_shard / 2));

  const TimePs exposed_off = exposed_tensor(off);
  const TimePs exposed_on = exposed_tensor(on);
  INFO("fp8: exposed TP " << ps_to_seconds(exposed_off) * 1e3 << " ms without overlap, "
                          << ps_to_seconds(exposed_on) * 1e3 << " ms with; step " << off.step_s() * 1e3 << " ms -> "
                          << on.step_s() * 1e3 << " ms");
  REQUIRE(exposed_off > 0);
  CHECK(exposed_on < exposed_off / 2);
  CHECK(on.step_s() < off.step_s());
}
