// Context parallelism replayed: the ring's K/V transfers overlap the
// blockwise attention, so less of them is exposed than they take; a faster
// link between the CP ranks shortens what stays exposed; the report and the
// plan line name CP; the shipped CP config runs.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"
#include "sim/report/render.hpp"
#include "sim/report/step_report.hpp"

using namespace simctl;

namespace {

// Two DGX H100 nodes of the NDR fat tree: TP 8 inside each, CP 2 across
// them, so every K/V block crosses InfiniBand. Two blocks of a small model
// (2 heads of 128 per TP rank) keep the replay quick; at 16k tokens a
// step's K/V transfer (8 MiB at 400 Gb/s) outlasts its attention block, so
// some stays exposed.
std::string write_run(const std::string& name, const std::string& algorithm, const std::string& fabric_bandwidth) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_cp_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << "name: cp run " << name << "\n"
                      << "system:\n"
                      << "  name: 2x DGX H100\n"
                      << "  node_templates:\n"
                      << "    dgx_h100: {import: " << SIMCTL_SOURCE_DIR << "/configs/systems/dgx_h100.yaml}\n"
                      << "  nodes:\n"
                      << "    - {template: dgx_h100, count: 2}\n"
                      << "  fabric: {kind: fat_tree, tiers: 2, radix: 64, rail_optimised: true, "
                      << "link: infiniband_ndr, nics: \"nic[*]\", bandwidth: " << fabric_bandwidth << "}\n"
                      << "workload:\n"
                      << "  model: {layers: 2, hidden: 2048, heads: 16, kv_heads: 16, ffn: 5632, vocab: 32000,\n"
                      << "          seq_len: 16384, gated_mlp: true, norm: rmsnorm, position: rope, bias: false,\n"
                      << "          tied_embeddings: false}\n"
                      << "  parallel: {tensor: 8, context: 2, context_algorithm: " << algorithm << ", sequence: true}\n"
                      << "  micro_batch: 1\n"
                      << "  global_batch: 1\n"
                      << "  attention: flash3\n";
  return file.string();
}

TimeBreakdown rank_zero(const testing::PlanRun& run) {
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  return rank_breakdown(run.scenario.trace, run.result, rendezvous, 0);
}

// Time rank 0's CP receives spent moving bytes: from the moment both sides
// were there to the receive's end.
double cp_transfer_s(const testing::PlanRun& run) {
  const std::vector<Op>& ops = run.scenario.trace.ops(0);
  double sum = 0.0;
  std::size_t meeting = 0;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (!meets_others(ops[i])) continue;
    const Rendezvous& met = run.result.meetings[0][meeting++];
    const auto* t = std::get_if<PeerTransfer>(&ops[i].work);
    if (t == nullptr || t->dimension != CommDimension::context || t->side != PeerTransfer::Side::receive) continue;
    sum += ps_to_seconds(run.result.timeline(0).ops[i].end - met.ready);
  }
  return sum;
}

}  // namespace

TEST_CASE("ring attention hides part of its K/V transfers under the blockwise compute", "[plans][context]") {
  const testing::PlanRun run = testing::run_scenario(load_scenario(write_run("ring", "ring", "400 Gb/s")));
  const double transfers = cp_transfer_s(run);
  const double exposed = ps_to_seconds(rank_zero(run)[Category::comm_context]);
  INFO("CP transfers " << transfers * 1e6 << " us, exposed " << exposed * 1e6 << " us");
  REQUIRE(transfers > 0.0);
  CHECK(exposed > 0.0);
  CHECK(exposed < 0.8 * transfers);
}

TEST_CASE("a faster link between the CP ranks shortens the exposed CP time", "[plans][context]") {
  // NDR halved, then at its own 400 Gb/s (above that the GPU's PCIe to its NIC binds).
  const testing::PlanRun slow = testing::run_scenario(load_scenario(write_run("slow", "ring", "200 Gb/s")));
  const testing::PlanRun fast = testing::run_scenario(load_scenario(write_run("fast", "ring", "400 Gb/s")));
  const double slow_exposed = ps_to_seconds(rank_zero(slow)[Category::comm_context]);
  const double fast_exposed = ps_to_seconds(rank_zero(fast)[Category::comm_context]);
  INFO("exposed CP at 200 Gb/s " << slow_exposed * 1e6 << " us, at 400 Gb/s " << fast_exposed * 1e6 << " us");
  CHECK(fast_exposed < 0.8 * slow_exposed);
  CHECK(fast.step_s() < slow.step_s());
}

TEST_CASE("the all-to-all and all-gather variants expose their collectives as CP", "[plans][context]") {
  for (const std::string algorithm : {"all_to_all", "all_gather"}) {
    INFO(algorithm);
    const testing::PlanRun run = testing::run_scenario(load_scenario(write_run(algorithm, algorithm, "400 Gb/s")));
    CHECK(ps_to_seconds(rank_zero(run)[Category::comm_context]) > 0.0);
    bool on_cp = false;
    for (const auto& usage : run.result.collectives) on_cp = on_cp || usage.kind.dimension == CommDimension::context;
    CHECK(on_cp);
  }
}

TEST_CASE("the shipped CP config runs, and its report names the CP dimension", "[plans][context]") {
  const testing::PlanRun run = testing::run_config("configs/dgx_h100_x8_llama3_8b_cp4_32k.yaml");
  REQUIRE(run.scenario.workload.parallel.context == 4);
  CHECK(run.step_s() > 0.0);
  const StepReport report = build_step_report(run.scenario.trace, run.result, run.scenario.system,
                                              run.scenario.catalogue, run.scenario.labels);
  const std::string text = render_text(report);
  CHECK_THAT(text, Catch::Contains("context parallel (CP)"));
  CHECK_THAT(run.scenario.labels.workload, Catch::Contains("TP 2+SP x CP 4 (ring) x PP 1"));
}
