// Replaying alike data-parallel replicas once and sharing their timings
// (sim/exec/replica_fold.hpp) must give exactly the answer of replaying every
// rank: the whole JSON report (step time, every rank's breakdown, links,
// collectives, critical path, bottleneck) byte for byte, except the replay's
// own event and flow counts. Where ranks are not alike (a straggler, mixed
// GPUs) the replay must not fold; where the fabric makes images contend
// differently it must notice and replay every rank.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <map>
#include <optional>

#include "sim/config/config_error.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/render.hpp"
#include "sim/report/rendezvous.hpp"
#include "sim/report/step_report.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/exec/dgx_h100_cluster.hpp"
#include "tests/report/report_outputs.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace {

struct Replays {
  std::string folded;  // JSON report of the default replay
  std::string full;    // JSON report of the replay of every rank
  double folded_step_s = 0, full_step_s = 0;
  TimePs fold_drift = 0;  // the largest drift the folded replay accepted
  // Ranks whose op timings, as ExecutionResult::timeline gives them, differ
  // between the two replays (an image shares its representative's).
  std::uint32_t ranks_timed_otherwise = 0;
  // Ranks with a meeting (when it was ready, who arrived last) that differs
  // between the two replays (an image's are derived from its representative's).
  std::uint32_t ranks_met_otherwise = 0;
  std::uint32_t replicas_folded = 0;
  std::optional<Executor::FoldAbandoned> abandoned;  // why the default replay replayed every rank
};

std::string report_json(const Scenario& s, const ExecutionResult& result) {
  const StepReport report =
      build_step_report(s.trace, result, s.system, s.catalogue, s.labels, {s.costs, s.rank_memory});
  nlohmann::json json = render_json(report);
  json.erase("events");  // the replay's own work, which folding cuts
  json.erase("flows");
  return json.dump(1);
}

Replays replay_both(const std::string& config_path) {
  const Scenario s = load_scenario(config_path);
  Replays out;
  Executor folded(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  folded.set_fold_tolerance(s.fold_tolerance);
  const ExecutionResult folded_result = folded.run();
  out.folded_step_s = ps_to_seconds(folded_result.step_time);
  out.fold_drift = folded.fold_drift();
  out.folded = report_json(s, folded_result);
  out.replicas_folded = folded.replicas_folded();
  out.abandoned = folded.fold_abandoned();
  Executor full(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  full.set_replay_mode(ReplayMode::every_rank);
  const ExecutionResult full_result = full.run();
  out.full = report_json(s, full_result);
  out.full_step_s = ps_to_seconds(full_result.step_time);
  REQUIRE(full.replicas_folded() == 1);
  REQUIRE(folded_result.rank_count() == full_result.rank_count());
  for (std::uint32_t r = 0; r < full_result.rank_count(); ++r) {
    const auto& a = folded_result.timeline(r).ops;
    const auto& b = full_result.timeline(r).ops;
    const auto same = [](const OpTiming& x, const OpTiming& y) { return x.start == y.start && x.end == y.end; };
    if (a.size() != b.size() || !std::equal(a.begin(), a.end(), b.begin(), same)) ++out.ranks_timed_otherwise;
  }
  const RendezvousTable folded_meetings = match_rendezvous(s.trace, folded_result);
  const RendezvousTable full_meetings = match_rendezvous(s.trace, full_result);
  for (std::uint32_t r = 0; r < full_result.rank_count(); ++r) {
    const auto& ops = full_meetings.meeting_ops(r);
    const bool same = std::all_of(ops.begin(), ops.end(), [&](OpIndex i) {
      const Rendezvous x = folded_meetings.at(r, i), y = full_meetings.at(r, i);
      return x.ready == y.ready && x.last_arrival == y.last_arrival;
    });
    if (!same) ++out.ranks_met_otherwise;
  }
  return out;
}

// The mechanism ran (`replicas` data-parallel replicas replayed as one) and
// gave the full replay's answer: the same report, every image's shared
// timeline its own in the full replay, and so every meeting derived from its
// representative's.
void check_exact_fold(const Replays& r, std::uint32_t replicas) {
  CHECK(r.replicas_folded == replicas);
  CHECK_FALSE(r.abandoned);
  CHECK(r.folded == r.full);
  CHECK(r.ranks_timed_otherwise == 0);
  CHECK(r.ranks_met_otherwise == 0);
}

// GPT 1.3B, TP 8 x PP 2 x DP 8 on 16 DGX H100 nodes of `system_file`, DDP,
// with `extra` appended to the run config (stragglers, say) and
// `parallel_extra` to the parallel plan.
std::string write_run(const TempDir& dir, const std::string& system_file, const std::string& extra = "",
                      const std::string& parallel_extra = "") {
  const auto path = dir.path() / "run.yaml";
  std::ofstream out(path);
  out << "system: " << system_file << "\n"
      << "workload: {model: gpt-1.3b, parallel: {data: 8, tensor: 8, pipeline: 2, sequence: true" << parallel_extra
      << "}, strategy: ddp, "
      << "micro_batch: 1, global_batch: 32, precision: bf16, optimizer: adam, activation_recompute: selective}\n"
      << extra;
  return path.string();
}

// `nodes` DGX H100 nodes named `name` on the fabric `fabric` (a flow mapping).
std::string write_system(const TempDir& dir, const std::string& name, const std::string& fabric, int nodes = 16) {
  return write_dgx_h100_cluster(dir, name, fabric, nodes);
}

// A fat tree of radix-16 switches, 2:1 oversubscribed and not
// rail-optimised: 10 NICs per leaf, 5 uplinks each, so pipeline and
// data-parallel flows cross spines chosen by ECMP and share the uplinks.
std::string write_oversubscribed_system(const TempDir& dir) {
  return write_system(dir, "16x DGX H100, 2:1 fat tree of radix 16",
                      "{kind: fat_tree, tiers: 2, radix: 16, oversubscription: 2, link: infiniband_ndr, "
                      "nics: \"nic[*]\", routing: ecmp}");
}

// A non-blocking rail-optimised fat tree of radix-16 switches: 8 nodes per
// leaf on each rail, so the data-parallel rings (one replica every 2 nodes)
// cross leaves and spines; `routing` is appended to the fabric mapping.
std::string write_multi_leaf_system(const TempDir& dir, const std::string& routing) {
  return write_system(dir, "16x DGX H100, fat tree of radix 16",
                      "{kind: fat_tree, tiers: 2, radix: 16, rail_optimised: true, link: infiniband_ndr, "
                      "nics: \"nic[*]\"" +
                          routing + "}");
}

// 12 DGX H100 nodes on a rail-optimised fat tree of radix-16 switches (two
// leaves of 6 nodes on each rail, static routing), running TP 8 x PP 3 x
// DP 4: replica d's stages sit on nodes d, d + 4 and d + 8, so replica 0
// passes its activations to stage 1 under one leaf and to stage 2 through a
// spine, and replica 2 the other way round.
// `extra` is appended to the run config.
std::string write_strided_stages_run(const TempDir& dir, const std::string& extra) {
  const std::string system = write_system(dir, "12x DGX H100, rail-optimised fat tree of radix 16",
                                          "{kind: fat_tree, tiers: 2, radix: 16, rail_optimised: true, "
                                          "link: infiniband_ndr, nics: \"nic[*]\", routing: static}",
                                          12);
  const auto run = dir.path() / "run.yaml";
  std::ofstream(run) << "system: " << system << "\n"
                     << "workload: {model: gpt-1.3b, parallel: {data: 4, tensor: 8, pipeline: 3, sequence: true}, "
                     << "strategy: ddp, micro_batch: 1, global_batch: 16, precision: bf16, optimizer: adam, "
                     << "activation_recompute: selective}\n"
                     << extra;
  return run.string();
}

}  // namespace

TEST_CASE("alike replicas on a non-blocking fat tree fold and give the full replay's report", "[exec][fold]") {
  const TempDir dir("fold_alike");
  const Replays r = replay_both(write_run(dir, source_path("configs/systems/dgx_h100_x16_ndr.yaml")));
  check_exact_fold(r, 8);
}

TEST_CASE("a straggler makes its replica unlike the others: no fold, the full replay's report", "[exec][fold]") {
  const TempDir dir("fold_straggler");
  const Replays r = replay_both(write_run(dir, source_path("configs/systems/dgx_h100_x16_ndr.yaml"),
                                          "stragglers:\n  - {gpu: node5.gpu3, compute_speed: 0.8}\n"));
  CHECK(r.replicas_folded == 1);
  REQUIRE(r.abandoned);
  CHECK_THAT(r.abandoned->reason, Catch::Contains("not alike"));
  CHECK(r.abandoned->at == 0);  // known before the replay
  CHECK(r.folded == r.full);
}

TEST_CASE("mixed H100 and A100 nodes are not alike: no fold, the full replay's report", "[exec][fold]") {
  const Replays r = replay_both(source_path("configs/mixed_h100_a100_ddp.yaml"));
  CHECK(r.replicas_folded == 1);
  CHECK(r.folded == r.full);
}

TEST_CASE("an oversubscribed fat tree with ECMP: the fold's answer is the full replay's", "[exec][fold]") {
  const TempDir dir("fold_oversubscribed");
  const Replays r = replay_both(write_run(dir, write_oversubscribed_system(dir)));
  // The ranks pass the checks made before the replay, but the images'
  // pipeline transfers cross other leaves and uplinks than the
  // representative's and meet other flows there (data-parallel rings on
  // ECMP-chosen spines): the replay must notice (an image's transfer ending
  // at another time) and replay every rank.
  CHECK(r.replicas_folded == 1);
  REQUIRE(r.abandoned);
  CHECK_THAT(r.abandoned->reason, Catch::Contains("ended at another time than the representative's"));
  CHECK(r.abandoned->at > 0);  // found during the folded replay
  CHECK(r.folded == r.full);
}

TEST_CASE("static fabric routing keeps replicas alike across leaves: they fold, to the full replay's answer",
          "[exec][fold][routing]") {
  const TempDir dir("fold_static_routing");
  // ECMP: each flow's spine is a hash of its key, and the images' keys
  // differ, so their rings meet other flows on other uplinks than the
  // representative's: the fold is abandoned.
  const Replays ecmp = replay_both(write_run(dir, write_multi_leaf_system(dir, ", routing: ecmp")));
  CHECK(ecmp.replicas_folded == 1);
  REQUIRE(ecmp.abandoned);
  CHECK(ecmp.folded == ecmp.full);
  // Static (D-mod-k): the uplink is the destination node's digit, the same
  // for every image's shifted ring, so no image meets other contention.
  const TempDir dir2("fold_static_routing2");
  const Replays fixed = replay_both(write_run(dir2, write_multi_leaf_system(dir2, ", routing: static")));
  check_exact_fold(fixed, 8);
}

TEST_CASE("adaptive fabric routing loads every image's fabric alike: they fold, to the full replay's answer",
          "[exec][fold][routing]") {
  // Pooled tiers (fabric_bundles.hpp): an image's flows cross its own
  // leaves' pools, loaded as the representative's are, where ECMP (the case
  // above) hashed them onto other uplinks than the representative's.
  const TempDir dir("fold_adaptive_routing");
  const Replays r = replay_both(write_run(dir, write_multi_leaf_system(dir, ", routing: adaptive")));
  check_exact_fold(r, 8);
}

TEST_CASE("two data-parallel replicas on each node (TP 4) fold as one, to the full replay's answer", "[exec][fold]") {
  // Ranks tensor-first: a node holds ranks 8k..8k+7, two TP 4 groups of
  // replicas 2k and 2k+1, whose data-parallel rings cross the node's NVLink
  // beside its TP traffic. They replay as one replica, and their TP
  // collectives and TP overlap's ring steps run for every image, so image
  // nodes carry what the representative's does.
  for (const std::string routing : {", routing: static", ", routing: adaptive"}) {
    INFO(routing);
    const TempDir dir("fold_two_per_node");
    const std::string system = write_multi_leaf_system(dir, routing);
    const auto run = dir.path() / "tp4.yaml";
    std::ofstream(run) << "system: " << system << "\n"
                       << "workload: {model: gpt-1.3b, parallel: {data: 16, tensor: 4, pipeline: 2, sequence: true, "
                       << "tp_comm_overlap: true}, strategy: zero1, micro_batch: 1, global_batch: 64, "
                       << "precision: bf16, optimizer: adam, activation_recompute: selective}\n";
    check_exact_fold(replay_both(run.string()), 8);
  }
}

TEST_CASE("a context-parallel pair in one node folds with its gradient ring crossing NVLink in every image",
          "[exec][fold]") {
  // TP 4 x CP 2 x PP 2 x DP 8 on 16 nodes: a replica is a pipeline of two
  // nodes, and each node holds a CP pair of TP 4 groups. Gradients are
  // summed over data x context, so each gradient ring's CP pair hop crosses
  // the node's NVLink beside the TP and CP traffic; the CP and TP
  // collectives therefore run for every image (until 2026-11-30 they ran
  // for the representative alone, and the fold was abandoned at the step's
  // end when an image node's NVLink carried other bytes).
  const TempDir dir("fold_cp_pair");
  const std::string system = write_multi_leaf_system(dir, ", routing: adaptive");
  const auto run = dir.path() / "cp2.yaml";
  std::ofstream(run) << "system: " << system << "\n"
                     << "workload: {model: {layers: 8, hidden: 2048, heads: 16, vocab: 50304, seq_len: 4096}, "
                     << "parallel: {data: 8, tensor: 4, context: 2, pipeline: 2, sequence: true, "
                     << "order: [tensor, pipeline, data]}, strategy: zero1, micro_batch: 1, global_batch: 32, "
                     << "precision: bf16, optimizer: adam, activation_recompute: selective}\n";
  check_exact_fold(replay_both(run.string()), 8);
}

namespace fold_test_detail {

// Bytes the replay's leaf-to-spine links carried, per leaf.
std::map<EndpointId, std::vector<double>> leaf_uplink_bytes(const std::string& config_path) {
  const Scenario s = load_scenario(config_path);
  Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  const ExecutionResult result = executor.run();
  std::map<EndpointId, std::vector<double>> out;
  for (LinkId l = 0; l < s.system.num_links(); ++l) {
    const Part& from = s.system.part(s.system.link_source(l));
    if (from.group == "leaf" && s.system.part(s.system.link_target(l)).group == "spine") {
      out[s.system.link_source(l)].push_back(result.links[l].bytes);
    }
  }
  return out;
}

}  // namespace fold_test_detail

TEST_CASE("an adaptive fabric's report spreads each pool's bytes evenly over its links", "[exec][routing]") {
  const TempDir dir("adaptive_link_bytes"), dir2("static_link_bytes");
  const auto pooled =
      fold_test_detail::leaf_uplink_bytes(write_run(dir, write_multi_leaf_system(dir, ", routing: adaptive")));
  const auto fixed =
      fold_test_detail::leaf_uplink_bytes(write_run(dir2, write_multi_leaf_system(dir2, ", routing: static")));
  REQUIRE(pooled.size() == fixed.size());
  double pooled_total = 0, fixed_total = 0;
  for (const auto& [leaf, bytes] : pooled) {
    for (double b : bytes) CHECK(b == Approx(bytes.front()).epsilon(1e-12));
    for (double b : bytes) pooled_total += b;
    for (double b : fixed.at(leaf)) fixed_total += b;
  }
  // The same flows leave the same leaves whichever way they climb.
  CHECK(pooled_total > 0);
  CHECK(pooled_total == Approx(fixed_total).epsilon(1e-9));
}

TEST_CASE("TP overlap's ring steps inside a node fold like node-local collectives, to the full replay's answer",
          "[exec][fold][tp_overlap]") {
  const TempDir dir("fold_tp_overlap");
  // The ring exchange's transfers stay inside each node: the representative
  // runs them alone, and its NVLink links carry them beside the node-local
  // reduce-scatter chunks. Were the images' transfers run too, their nodes'
  // links would carry other bytes and the fold would be abandoned at the end.
  const Replays r =
      replay_both(write_run(dir, source_path("configs/systems/dgx_h100_x16_ndr.yaml"), "", ", tp_comm_overlap: true"));
  check_exact_fold(r, 8);
}

TEST_CASE("AsyncTP's transfers inside a node fold like TP overlap's ring steps, to the full replay's answer",
          "[exec][fold][async_tp]") {
  const TempDir dir("fold_async_tp");
  const auto path = dir.path() / "run.yaml";
  std::ofstream(path) << "system: " << source_path("configs/systems/dgx_h100_x16_ndr.yaml") << "\n"
                      << "workload: {model: gpt-1.3b, framework: torchtitan, compile: true, parallel: {data: 8, "
                      << "tensor: 8, pipeline: 2, sequence: true, async_tp: true}, strategy: ddp, micro_batch: 1, "
                      << "global_batch: 32, precision: bf16, optimizer: adam, activation_recompute: full}\n";
  check_exact_fold(replay_both(path.string()), 8);
}

TEST_CASE("replay.fold_tolerance folds replicas whose transfers differ by a spine's latency, near the full replay",
          "[exec][fold]") {
  const TempDir dir("fold_tolerance");
  // Exact: replica 2's first transfer crosses a spine where replica 0's
  // stays under its leaf, so it ends a few hops later: the fold is abandoned.
  const Replays exact = replay_both(write_strided_stages_run(dir, ""));
  CHECK(exact.replicas_folded == 1);
  REQUIRE(exact.abandoned);
  CHECK_THAT(exact.abandoned->reason, Catch::Contains("pipeline transfer"));
  CHECK(exact.folded == exact.full);
  // With a tolerance above those hops the replicas fold, and the step moves
  // by no more than the tolerance times the transfers on its critical path.
  const TempDir dir2("fold_tolerance2");
  const Replays loose = replay_both(write_strided_stages_run(dir2, "replay: {fold_tolerance: 5 us}\n"));
  CHECK(loose.replicas_folded == 4);
  CHECK_FALSE(loose.abandoned);
  CHECK(loose.fold_drift > 0);  // the images' ends did stray, and by less than the tolerance
  CHECK(loose.fold_drift <= seconds_to_ps(5e-6));
  CHECK(loose.full_step_s == exact.full_step_s);  // the tolerance touches the folded replay only
  CHECK(loose.folded_step_s == Approx(loose.full_step_s).epsilon(1e-3));
}

TEST_CASE("a fold tolerance that is no time or beyond 1 ms is refused at its field", "[exec][fold]") {
  const TempDir dir("fold_tolerance_bad");
  for (const char* bad : {"replay: {fold_tolerance: 2 ms}\n", "replay: {fold_tolerance: fast}\n",
                          "replay: {fold_tolerance: 1 us, tolerance: 2 us}\n"}) {
    try {
      load_scenario(write_strided_stages_run(dir, bad));
      FAIL("accepted " << bad);
    } catch (const ConfigError& e) {
      CHECK_THAT(std::string(e.what()), Catch::Contains("replay"));
    }
  }
}
