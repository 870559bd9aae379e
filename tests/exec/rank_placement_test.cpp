// `parallel.gpus_per_node`: ranks on the first N GPUs of each node, as
// Slurm's --segment places MLPerf's GB200 jobs on 16 of a rack's 18 trays, so
// that a replica's pipeline stays inside one NVLink domain.
#include <catch2/catch.hpp>
#include <fstream>

#include "sim/exec/executor.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/exec/dgx_h100_cluster.hpp"
#include "tests/report/report_outputs.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace rank_placement {

// Two 8-GPU DGX H100 nodes; a TP 2 x PP 2 x DP 2 plan of 8 ranks.
std::string write_run(const TempDir& dir, const std::string& placement) {
  const std::string system = write_dgx_h100_cluster(
      dir, "2x DGX H100", "{kind: fat_tree, tiers: 2, radix: 16, link: infiniband_ndr, nics: \"nic[*]\"}", 2);
  const auto run = dir.path() / "run.yaml";
  std::ofstream(run) << "system: " << system << "\n"
                     << "workload: {model: {layers: 4, hidden: 1024, heads: 16, vocab: 50304, seq_len: 1024}, "
                     << "parallel: {data: 2, tensor: 2, pipeline: 2" << placement << "}, "
                     << "strategy: ddp, micro_batch: 1, global_batch: 4, precision: bf16, optimizer: adam}\n";
  return run.string();
}

}  // namespace rank_placement

TEST_CASE("gpus_per_node puts ranks on the first GPUs of each node", "[scenario][placement]") {
  TempDir dir("simctl_rank_placement");
  const Scenario four = load_scenario(rank_placement::write_run(dir, ", gpus_per_node: 4"));
  CHECK(four.workload.parallel.gpus == std::vector<std::uint32_t>{0, 1, 2, 3, 8, 9, 10, 11});
  const Scenario eight = load_scenario(rank_placement::write_run(dir, ", gpus_per_node: 8"));
  CHECK(eight.workload.parallel.gpus == std::vector<std::uint32_t>{0, 1, 2, 3, 4, 5, 6, 7});
  // Ranks 4-7 are the second pipeline stage (rank order tensor, data,
  // pipeline): on the other node its transfers cross the fabric, a slower
  // step than on one node's NVLink.
  const auto step = [](const Scenario& s) {
    return Executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives).run().step_time;
  };
  CHECK(step(four) > step(eight));
}

TEST_CASE("gpus_per_node refuses a plan the nodes cannot hold at that many each", "[scenario][placement]") {
  TempDir dir("simctl_rank_placement_bad");
  const auto message = [&](const std::string& placement) {
    try {
      load_scenario(rank_placement::write_run(dir, placement));
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK_THAT(message(", gpus_per_node: 3"),
             Catch::Contains("workload.parallel.gpus_per_node") && Catch::Contains("places 6 of the plan's 8 ranks"));
  CHECK_THAT(message(", gpus_per_node: 0"), Catch::Contains("workload.parallel.gpus_per_node"));
  CHECK_THAT(message(", gpus_per_node: 4, gpus: [0, 1, 2, 3, 4, 5, 6, 7]"),
             Catch::Contains("gpus_per_node") && Catch::Contains("cannot be given with `gpus`"));
}
