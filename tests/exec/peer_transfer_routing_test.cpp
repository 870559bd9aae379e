// Pipeline transfers between nodes under ECMP take one flow key per sender and
// receiver (NCCL's connection per peer): on a fat tree they spread over the
// spines as the fabric's hash spreads them, instead of all climbing each
// leaf's first-declared spine.
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "sim/exec/executor.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/exec/dgx_h100_cluster.hpp"
#include "tests/report/report_outputs.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace {

// Two DGX H100 nodes on a radix-16 fat tree that is not rail-optimised and
// hashes flows (ECMP; InfiniBand's own default is adaptive routing, which
// would spread every transfer over all spines whatever its key): each
// node's 8 NICs fill one leaf, whose 8 uplinks reach 8 spines. A 4-layer GPT
// with untied embeddings (no embedding all-reduce between the stages) on
// TP 8 x PP 2: each of the 8 TP ranks of stage 0 sends to its peer in the
// other node, so every pipeline transfer crosses a spine.
std::string write_two_leaf_run(const TempDir& dir) {
  const std::string system = write_dgx_h100_cluster(
      dir, "2x DGX H100, fat tree of radix 16",
      "{kind: fat_tree, tiers: 2, radix: 16, link: infiniband_ndr, nics: \"nic[*]\", routing: ecmp}", 2);
  const auto run = dir.path() / "run.yaml";
  std::ofstream(run) << "system: " << system << "\n"
                     << "workload: {model: {layers: 4, hidden: 2048, heads: 16, vocab: 50304, seq_len: 2048, "
                     << "tied_embeddings: false}, parallel: {data: 1, tensor: 8, pipeline: 2, sequence: true}, "
                     << "strategy: ddp, micro_batch: 1, global_batch: 8, precision: bf16, optimizer: adam, "
                     << "activation_recompute: selective}\n";
  return run.string();
}

}  // namespace

TEST_CASE("pipeline transfers between leaves spread over the spines under ECMP", "[exec][routing][ecmp]") {
  const TempDir dir("peer_transfer_routing");
  const Scenario s = load_scenario(write_two_leaf_run(dir));
  const ExecutionResult result = Executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives).run();
  std::set<EndpointId> spines_used;
  for (LinkId l = 0; l < s.system.num_links(); ++l) {
    const Part& from = s.system.part(s.system.link_source(l));
    const Part& to = s.system.part(s.system.link_target(l));
    if (from.group == "leaf" && to.group == "spine" && result.links[l].bytes > 0.0) {
      spines_used.insert(s.system.link_target(l));
    }
  }
  // Only pipeline transfers leave the nodes (TP stays on NVLink, DP is 1,
  // the embeddings are untied).
  // Keyless, all eight would take the first spine; hashed per peer pair they
  // reach several (eight keys over eight spines: the hash's collisions leave
  // some spine out, deterministically).
  CHECK(spines_used.size() >= 4);
}
