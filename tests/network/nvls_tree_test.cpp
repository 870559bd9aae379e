// NCCL's NVLSTree: NVLink SHARP inside each node, a double binary tree per
// rail across nodes (models/network/nvls_tree_plan.hpp).
#include <catch2/catch.hpp>
#include <map>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective_choice.hpp"
#include "models/network/link_kinds.hpp"
#include "models/network/nccl_test.hpp"
#include "models/network/node_trees.hpp"
#include "models/network/nvls_tree_plan.hpp"
#include "models/network/system_collective_topology.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/system_config.hpp"
#include "tests/network/shipped_systems.hpp"

using namespace simctl;
using simctl::test::system_named;

namespace {

// Wire bytes a plan sends out of `from` toward `to` (a predicate on the destination).
template <class Pred>
double sent(const TransferPlan& plan, EndpointId from, Pred to) {
  double bytes = 0.0;
  for (const Transfer& t : plan.transfers) {
    if (t.from == from && to(t.to)) bytes += t.wire_bytes;
  }
  return bytes;
}

}  // namespace

TEST_CASE("NVLSTree moves bytes(m+1)/m per GPU over NVLink and bytes/m per NIC on two nodes, twice that from four",
          "[network][collective][nvls_tree]") {
  // Endpoints: GPUs 0..(nodes*m - 1), node k's switch is 100 + k.
  auto plan_for = [](int nodes, int m, double bytes) {
    std::vector<std::vector<EndpointId>> by_node(static_cast<std::size_t>(nodes));
    std::vector<EndpointId> switches;
    for (int k = 0; k < nodes; ++k) {
      for (int l = 0; l < m; ++l) by_node[static_cast<std::size_t>(k)].push_back(static_cast<EndpointId>(k * m + l));
      switches.push_back(static_cast<EndpointId>(100 + k));
    }
    NvlsTreeTuning tuning;  // efficiency 1: wire bytes are payload
    return plan_nvls_tree({by_node, switches, bytes, tuning, 0, 1.0});
  };
  const double bytes = 64.0 * kMiB;
  const int m = 4;
  auto is_switch = [](EndpointId e) { return e >= 100; };
  for (int nodes : {2, 4, 8}) {
    const TransferPlan plan = plan_for(nodes, m, bytes);
    double most_across = 0.0;
    for (int g = 0; g < nodes * m; ++g) {
      const auto gpu = static_cast<EndpointId>(g);
      const int node = g / m;
      CHECK(sent(plan, gpu, is_switch) == Approx(bytes * (m + 1) / m));
      auto other_node = [&](EndpointId e) { return e < 100 && static_cast<int>(e) / m != node; };
      auto same_rail = [&](EndpointId e) { return e < 100 && static_cast<int>(e) % m == g % m; };
      // Network traffic stays on the GPU's rail.
      CHECK(sent(plan, gpu, other_node) == Approx(sent(plan, gpu, same_rail)));
      most_across = std::max(most_across, sent(plan, gpu, other_node));
    }
    INFO(nodes << " nodes");
    CHECK(most_across == Approx(bytes * double_tree_nic_load(nodes) / m));
  }
  // NCCL's trees: on two nodes each NIC carries the slice once; from four
  // on an inner node (two children) of one tree is a leaf of the other.
  CHECK(double_tree_nic_load(2) == 1.0);
  CHECK(double_tree_nic_load(4) == 2.0);
  CHECK(double_tree_nic_load(8) == 2.0);
  CHECK(double_tree_nic_load(7) == 2.0);
  // Every transfer depends only on earlier ones (run_transfers would throw otherwise).
  const TransferPlan plan = plan_for(3, 2, bytes);
  for (std::size_t i = 0; i < plan.transfers.size(); ++i) {
    for (std::uint32_t d : plan.transfers[i].after) CHECK(d < i);
  }
}

TEST_CASE("NCCL's tuner picks NVLSTree for large all-reduces across H100 nodes, it beats the ring on two",
          "[network][collective][nvls_tree]") {
  const System& x16 = system_named("dgx_h100_x16_ndr.yaml");
  const CollectiveTuning tuning = CollectiveTuning::load();
  const CollectiveResult tree = simulate_collective(x16, tuning, {CollectiveOp::all_reduce, 16, 1.0 * kGiB});
  CHECK(tree.choice.algorithm == CollectiveAlgorithm::nvls_tree);
  const CollectiveResult ring =
      simulate_collective(x16, tuning, {CollectiveOp::all_reduce, 16, 1.0 * kGiB, CollectiveAlgorithm::ring});
  // Two nodes: each NIC carries bytes/8 once each way, the ring 2(n-1)/n x bytes/8.
  CHECK(tree.busbw_bytes_per_s > 1.2 * ring.busbw_bytes_per_s);
  // On eight nodes an inner tree node sends twice the slice through its NIC:
  // the NICs, not NVLink, bound it.
  const CollectiveResult eight =
      simulate_collective(x16, tuning, {CollectiveOp::all_reduce, 64, 8.0 * kGiB, CollectiveAlgorithm::nvls_tree});
  const CollectiveTopology facts = describe_collective_topology(x16);
  const double nic_bound_algbw = facts.inter_bytes_per_s * tuning.protocol_efficiency * 8 / double_tree_nic_load(8);
  CHECK(eight.algbw_bytes_per_s == Approx(nic_bound_algbw).epsilon(0.06));
  CHECK(eight.algbw_bytes_per_s < nic_bound_algbw);
}

TEST_CASE("NVLSTree needs several nodes of NVLS-capable NVSwitches with two or more GPUs each",
          "[network][collective][nvls_tree]") {
  const CollectiveTuning tuning = CollectiveTuning::load();
  auto attempt = [&](const char* system, int gpus) {
    return simulate_collective(system_named(system), tuning,
                               {CollectiveOp::all_reduce, gpus, 1.0 * kGiB, CollectiveAlgorithm::nvls_tree});
  };
  CHECK_THROWS_WITH(attempt("dgx_h100.yaml", 8), Catch::Contains("nvls_tree cannot run all_reduce"));
  CHECK_THROWS_WITH(attempt("dgx_a100_x5_hdr.yaml", 16), Catch::Contains("nvls_tree cannot run all_reduce"));
  CHECK_NOTHROW(attempt("dgx_h100_x4_ndr.yaml", 16));
  // A100 has no NVLS: across its nodes the tuner never picks it.
  const CollectiveResult a100 =
      simulate_collective(system_named("dgx_a100_x5_hdr.yaml"), tuning, {CollectiveOp::all_reduce, 16, 1.0 * kGiB});
  CHECK(a100.choice.algorithm != CollectiveAlgorithm::nvls_tree);
  // In a mixed cluster an A100 node's NVSwitch cannot take part.
  const System& mixed = system_named("mixed_h100_a100_ndr.yaml");
  CHECK(simulate_collective(mixed, tuning, {CollectiveOp::all_reduce, 16, 1.0 * kGiB}).choice.algorithm ==
        CollectiveAlgorithm::nvls_tree);
  CHECK(simulate_collective(mixed, tuning, {CollectiveOp::all_reduce, 24, 1.0 * kGiB}).choice.algorithm !=
        CollectiveAlgorithm::nvls_tree);
  // Pinned in a config, it is refused with the field's line and the valid choices.
  CHECK(algorithm_runs_op(CollectiveAlgorithm::nvls_tree, CollectiveOp::all_reduce));
  CHECK_FALSE(algorithm_runs_op(CollectiveAlgorithm::nvls_tree, CollectiveOp::all_gather));
}

TEST_CASE("the node trees are NCCL's: a btree rooted at 0 and its mirror, or its shift on an odd count",
          "[network][collective][nvls_tree]") {
  // NVIDIA/nccl src/graph/trees.cc, the illustration for 12 ranks: 0 - 8,
  // 8 - {4, 10}, 4 - {2, 6}, 2 - {1, 3}; the mirror rooted at 11.
  const auto twelve = nccl_double_tree(12);
  CHECK(twelve[0].parent[0] == -1);
  CHECK(twelve[0].children[0] == std::vector<int>{8});
  CHECK(twelve[0].children[8] == std::vector<int>{4, 10});
  CHECK(twelve[0].children[2] == std::vector<int>{1, 3});
  CHECK(twelve[1].parent[11] == -1);
  CHECK(twelve[1].children[11] == std::vector<int>{3});
  // 13 ranks: the second tree is the first shifted by one, rooted at 1.
  const auto thirteen = nccl_double_tree(13);
  CHECK(thirteen[0].children[12] == std::vector<int>{10});
  CHECK(thirteen[1].parent[1] == -1);
  CHECK(thirteen[1].children[1] == std::vector<int>{9});
}

// The pipelined fast path (pipelined_run.hpp): one steady flow per transfer
// of a chunk instead of 64 chunks of flows, and the first chunk's trip
// simulated alone. It must give the chunk-by-chunk plan's time where the
// plan is long (the shipped tuning takes it from 100,000 transfers: 26 or
// more nodes at 1 GiB, with 16 chunks or more), and run a fraction of the
// flows.
TEST_CASE("pipelined NVLSTree agrees with the chunk-by-chunk plan on long pipelines",
          "[network][collective][nvls_tree]") {
  const System& x16 = system_named("dgx_h100_x16_ndr.yaml");
  CollectiveTuning chunked = CollectiveTuning::load();
  chunked.fast_path_nvls_tree_min_transfers = UINT64_MAX;
  CollectiveTuning pipelined = chunked;
  pipelined.fast_path_nvls_tree_min_transfers = 1;
  for (int gpus : {16, 32, 64, 128}) {
    for (double bytes : {256.0 * kMiB, 1.0 * kGiB, 8.0 * kGiB}) {
      const CollectivePoint point{CollectiveOp::all_reduce, gpus, bytes, CollectiveAlgorithm::nvls_tree};
      const CollectiveResult a = simulate_collective(x16, chunked, point);
      const CollectiveResult b = simulate_collective(x16, pipelined, point);
      INFO(gpus << " GPUs, " << bytes / kGiB << " GiB: " << ps_to_seconds(a.time) * 1e6 << " us chunk by chunk, "
                << ps_to_seconds(b.time) * 1e6 << " us pipelined");
      CHECK(b.time == Approx(a.time).epsilon(0.01));
      CHECK(b.flows * 8 < a.flows);  // 16-64 chunks of flows against one, plus the steady ones
    }
  }
  // The shipped thresholds leave the plans of up to 10 nodes (the measured
  // points) and plans of few chunks chunk by chunk, and pipeline 128 nodes'
  // at 1 GiB.
  const CollectiveTuning shipped = CollectiveTuning::load();
  const CollectivePoint ten_nodes{CollectiveOp::all_reduce, 80, 8.0 * kGiB, CollectiveAlgorithm::nvls_tree};
  CHECK(simulate_collective(x16, shipped, ten_nodes).flows == simulate_collective(x16, chunked, ten_nodes).flows);
  const System& x128 = system_named("dgx_h100_x128_ndr.yaml");
  const CollectiveResult big =
      simulate_collective(x128, shipped, {CollectiveOp::all_reduce, 1024, 1.0 * kGiB, CollectiveAlgorithm::nvls_tree});
  CHECK(big.flows < 10000);  // 8160 steady flows: one per transfer of a chunk
  // Plans of few chunks stay chunk by chunk however many transfers they have.
  CollectiveTuning any_size = shipped;
  any_size.fast_path_nvls_tree_min_transfers = 1;
  const CollectivePoint few_chunks{CollectiveOp::all_reduce, 80, 128.0 * kMiB, CollectiveAlgorithm::nvls_tree};
  CHECK(simulate_collective(x16, any_size, few_chunks).flows == simulate_collective(x16, chunked, few_chunks).flows);
  CHECK(big.busbw_bytes_per_s > 0.8 * simulate_collective(x16, shipped, ten_nodes).busbw_bytes_per_s);
}
