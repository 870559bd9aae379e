// Rings across nodes: what bounds them (the NIC at its RDMA rate, or what a
// rank's CTAs copy, split over its rings) and the nccl-tests twin's
// per-node selection that the one- and four-GPU-per-node runs need.
#include <catch2/catch.hpp>
#include <stdexcept>

#include "models/network/collective.hpp"
#include "models/network/nccl_test.hpp"
#include "models/network/system_collective_topology.hpp"
#include "tests/network/shipped_systems.hpp"

using namespace simctl;
using simctl::test::system_named;

namespace {

const System& sixteen_nodes() { return system_named("dgx_h100_x16_ndr.yaml"); }

double ring_busbw(int gpus, int per_node, int ctas = 0) {
  CollectivePoint point{CollectiveOp::all_reduce, gpus, 16.0 * kGiB, CollectiveAlgorithm::ring, Protocol::simple};
  point.per_node = per_node;
  point.ctas = ctas;
  return simulate_collective(sixteen_nodes(), CollectiveTuning::load(), point).busbw_bytes_per_s;
}

}  // namespace

TEST_CASE("a ring of one GPU per node runs at the NIC's rate, not Simple's share of it", "[network][ring][multinode]") {
  // Site C measured 48.9 GB/s of busbw on 10 such GPUs; Simple's share of
  // the NIC (0.926 x 47.5 GB/s) would cap it at 44.
  const CollectiveTopology facts = describe_collective_topology(sixteen_nodes());
  const double busbw = ring_busbw(10, 1);
  CHECK(busbw == Approx(facts.inter_bytes_per_s).epsilon(0.01));
  CHECK(busbw > CollectiveTuning::load().protocol_efficiency * facts.inter_bytes_per_s * 1.05);
}

TEST_CASE("four GPUs per node fill their four NICs, eight are bound by their CTAs' copies",
          "[network][ring][multinode]") {
  const CollectiveTopology facts = describe_collective_topology(sixteen_nodes());
  const CollectiveTuning tuning = CollectiveTuning::load();
  // Four rings per rank: 16 CTAs' copies (16 x 20.24 GB/s / 4) are above the NIC.
  CHECK(ring_busbw(40, 4) == Approx(4 * facts.inter_bytes_per_s).epsilon(0.01));
  // Eight: NCCL's default 16 CTAs copy less than eight NICs carry and less
  // than the NVLink share, so they bound the ring (sites C and G: 320-324
  // GB/s on 4 to 10 nodes).
  const double eight = ring_busbw(32, 8);
  CHECK(eight == Approx(tuning.ctas_across_nodes * tuning.cta_bytes_per_s).epsilon(0.01));
  CHECK(eight < 0.9 * tuning.protocol_efficiency * facts.intra_bytes_per_s);
  // 24 CTAs (site G's NCCL_MIN_CTAS=24) lift it to the NVLink share, the
  // single-node ring's rate; 8 halve the default's.
  CHECK(ring_busbw(32, 8, 24) == Approx(tuning.protocol_efficiency * facts.intra_bytes_per_s).epsilon(0.01));
  CHECK(ring_busbw(32, 8, 8) == Approx(eight / 2).epsilon(0.01));
  // One node has no NIC hop: its ring stays at the NVLink share whatever the count.
  CHECK(ring_busbw(8, 8, 8) == Approx(ring_busbw(8, 8)).epsilon(0.001));
}

TEST_CASE("a NIC whose ring is bound by its CTAs carries only the bytes it moves", "[network][ring][multinode]") {
  // Eight GPUs per node: the CTAs copy 40.5 GB/s per ring, below the NIC.
  // The NIC hop is capped at that rate, not padded with bytes that never
  // cross it, so each NIC moves the ring's share and no more.
  const System& system = sixteen_nodes();
  const CollectiveTuning tuning = CollectiveTuning::load();
  Engine engine;
  FlowNetwork network(engine, system.link_capacities());
  CollectiveRunner runner(engine, network, system, tuning);
  const CollectiveTopology facts = describe_collective_topology(system);
  runner.set_topology(facts);
  const std::vector<EndpointId> members(system.gpus().begin(), system.gpus().begin() + 16);
  const double bytes = 4.0 * kGiB;
  TimePs done = 0;
  runner.start({CollectiveOp::all_reduce, members, bytes, CollectiveAlgorithm::ring, Protocol::simple},
               [&] { done = engine.now(); });
  engine.run();
  REQUIRE(done > 0);
  // Each rail ring crosses each of its two NICs once a step, each way:
  // 2(n-1) steps of its bytes/8 over n.
  const double n = 16.0, per_ring = bytes / 8.0;
  const double nic_payload = 2.0 * (n - 1.0) / n * per_ring;
  int nics = 0;
  for (LinkId l = 0; l < system.num_links(); ++l) {
    if (system.part(system.link_source(l)).kind != PartKind::nic) continue;
    if (network.bytes_carried(l) == 0.0) continue;
    ++nics;
    INFO(system.link_name(l));
    CHECK(network.bytes_carried(l) == Approx(nic_payload).epsilon(0.01));
    CHECK(network.bytes_carried(l) / ps_to_seconds(done) < 0.9 * facts.inter_bytes_per_s);
  }
  CHECK(nics == 32);  // 16 NICs, into their node and out of it
}

TEST_CASE("the nccl-tests twin takes the first GPUs of each node with per_node", "[network][nccl_test]") {
  const System& system = sixteen_nodes();
  CollectivePoint point{CollectiveOp::all_gather, 6, kGiB};
  point.per_node = 2;
  const auto members = collective_members(system, point);
  REQUIRE(members.size() == 6);
  for (std::size_t i = 0; i < members.size(); ++i) {
    CHECK(system.part(members[i]).node == static_cast<int>(i / 2));
    CHECK(members[i] == system.gpus()[(i / 2) * 8 + i % 2]);
  }
  // Without it, the first GPUs in rank order: all in node 0.
  point.per_node = 0;
  for (EndpointId gpu : collective_members(system, point)) CHECK(system.part(gpu).node == 0);
}

TEST_CASE("the nccl-tests twin refuses a per-node count the system cannot give", "[network][nccl_test]") {
  const System& system = sixteen_nodes();
  CollectivePoint point{CollectiveOp::all_reduce, 10, kGiB};
  point.per_node = 3;  // does not divide 10
  CHECK_THROWS_AS(collective_members(system, point), std::invalid_argument);
  point.per_node = 9;  // more than a DGX H100 node has
  point.gpus = 18;
  CHECK_THROWS_WITH(collective_members(system, point), Catch::Contains("node 0 has 8"));
  point.per_node = 1;  // 17 nodes' worth on 16
  point.gpus = 17;
  CHECK_THROWS_WITH(collective_members(system, point), Catch::Contains("the system's nodes give 16"));
}

TEST_CASE("two DGX A100 nodes' rings use all eight NICs, one per GPU", "[network][ring][multinode][own_nic]") {
  // Each GPU pair shares a PCIe switch with two NICs. Hashing flows over the
  // pair put two rings on one NIC and gave four NICs' worth (94.9 GB/s);
  // measured: 188.18 GB/s all-reduce busbw at 4 GiB on Azure NDmv4
  // (microsoft/mscclpp docs/performance-ndmv4.md).
  const System& a100 = system_named("dgx_a100_x5_hdr.yaml");
  const CollectiveTopology facts = describe_collective_topology(a100);
  CollectivePoint point{CollectiveOp::all_gather, 16, 4.0 * kGiB};
  const double busbw = simulate_collective(a100, CollectiveTuning::load(), point).busbw_bytes_per_s;
  CHECK(busbw > 7.5 * facts.inter_bytes_per_s);
  CHECK(busbw <= 8.0 * facts.inter_bytes_per_s * 1.001);
}
