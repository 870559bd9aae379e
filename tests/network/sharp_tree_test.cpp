// SHARP's aggregation tree: members under the first switch on their way to
// the root, one reduced stream per switch uplink.
#include <catch2/catch.hpp>
#include <set>

#include "models/network/collective_plans.hpp"
#include "models/network/nccl_test.hpp"
#include "models/network/system_collective_topology.hpp"
#include "tests/network/shipped_systems.hpp"

using namespace simctl;
using simctl::test::system_named;

namespace {

// GPU `local` of each of the first `nodes` nodes: one rail.
std::vector<EndpointId> rail(const System& system, int nodes, int local) {
  std::vector<EndpointId> members;
  for (int n = 0; n < nodes; ++n) members.push_back(system.gpus()[static_cast<std::size_t>(8 * n + local)]);
  return members;
}

}  // namespace

TEST_CASE("a rail that spans two leaves reduces at each leaf, then once at the spine", "[network][collective][sharp]") {
  const System& system = system_named("dgx_b200_x64_ndr.yaml");
  const CollectiveTopology facts = describe_collective_topology(system, true);
  const std::vector<EndpointId> members = rail(system, 64, 3);
  const std::optional<ReductionTree> tree = facts.reduction_tree(members);
  REQUIRE(tree);
  CHECK(system.part(tree->root).kind == PartKind::network_switch);
  std::set<EndpointId> leaves;
  int into_root = 0;
  for (const auto& edge : tree->edges) {
    if (edge.parent == tree->root) {
      ++into_root;
      CHECK(edge.depth == 0);
    } else {
      leaves.insert(edge.parent);
      CHECK(edge.depth == 1);
    }
  }
  // 32 nodes per leaf (radix 64, half down): two leaves, one edge each into the spine.
  CHECK(leaves.size() == 2);
  CHECK(into_root == 2);
  CHECK(tree->edges.size() == 66);

  // Under one leaf the tree is a star, as before.
  const auto one_leaf = facts.reduction_tree(rail(system, 4, 3));
  REQUIRE(one_leaf);
  CHECK(one_leaf->edges.size() == 4);
  for (const auto& edge : one_leaf->edges) CHECK(edge.parent == one_leaf->root);
}

TEST_CASE("SHARP's rate holds from one leaf to two: a leaf's uplink carries one share",
          "[network][collective][sharp]") {
  const System& system = system_named("dgx_b200_x64_ndr.yaml");
  const CollectiveTuning tuning = CollectiveTuning::load();
  auto busbw = [&](int gpus) {
    const CollectivePoint point{CollectiveOp::all_reduce, gpus, 1024.0 * 1024 * 1024, CollectiveAlgorithm::sharp,
                                Protocol::automatic,      true};
    return simulate_collective(system, tuning, point).busbw_bytes_per_s;
  };
  const double one_leaf = busbw(32), two_leaves = busbw(512);
  // Every member's stream straight to the spine put 32 on each leaf's uplink:
  // 512 GPUs ran at 1/18 of 32's rate.
  CHECK(two_leaves > 0.9 * one_leaf);
  CHECK(two_leaves < 1.1 * one_leaf);
}
