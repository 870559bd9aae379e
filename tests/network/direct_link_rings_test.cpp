// NCCL's rings on GPUs joined by some direct links, not all (issue #35):
// DGX-1's eight V100s are two NVLink quads joined GPU i to GPU i + 4, with
// no cable between GPU3 and GPU4 or GPU7 and GPU0. In member order a ring
// crossed PCIe and QPI there (12 GB/s of busbw at 1 GiB); NCCL's graph
// search builds its rings from NVLink alone (0-3-2-1-5-6-7-4 is one).
#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <set>

#include "models/network/collective_choice.hpp"
#include "models/network/collective_group.hpp"
#include "models/network/collective_tuning.hpp"
#include "models/network/mesh_rings.hpp"
#include "models/network/nccl_test.hpp"
#include "models/network/system_collective_topology.hpp"
#include "tests/network/shipped_systems.hpp"

using namespace simctl;

namespace direct_rings_detail {

constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;

// How many rings may take each hop: 1 per 25 GB/s link, 2 per bonded pair.
std::map<std::pair<EndpointId, EndpointId>, int> hop_capacity(const CollectiveTopology& topology,
                                                              const std::vector<EndpointId>& gpus, double ring_rate) {
  std::map<std::pair<EndpointId, EndpointId>, int> capacity;
  for (EndpointId g : gpus) {
    for (const auto& [peer, rate] : topology.place(g)->direct_links)
      capacity[{g, peer}] += static_cast<int>(rate / ring_rate + 0.5);
  }
  return capacity;
}

}  // namespace direct_rings_detail

using direct_rings_detail::hop_capacity;

TEST_CASE("on DGX-1's hybrid cube-mesh every ring takes NVLink alone, as many as its links hold",
          "[network][direct_rings]") {
  const System& dgx1 = test::system_named("dgx1_v100.yaml");
  const CollectiveTopology topology = describe_collective_topology(dgx1);
  const std::vector<EndpointId> gpus = dgx1.gpus();
  const DirectLinkRings direct = direct_link_rings(gpus, shape_of(gpus, &topology), &topology);
  REQUIRE(!direct.rings.empty());
  auto capacity = hop_capacity(topology, gpus, direct.ring_bytes_per_s);
  for (const auto& ring : direct.rings) {
    INFO("ring of " << ring.size());
    CHECK(std::set<EndpointId>(ring.begin(), ring.end()) == std::set<EndpointId>(gpus.begin(), gpus.end()));
    for (std::size_t i = 0; i < ring.size(); ++i) {
      const auto hop = std::make_pair(ring[i], ring[(i + 1) % ring.size()]);
      CHECK(--capacity[hop] >= 0);  // a cable, and one with room left
    }
  }
  // Six 25 GB/s links leave each GPU (bonded pairs count twice): six rings.
  CHECK(direct.rings.size() == 6);
}

TEST_CASE("links that hold no ring through every member leave the member order", "[network][direct_rings]") {
  const std::vector<EndpointId> members{10, 11, 12, 13};
  // A path 10 - 11 - 12 - 13 both ways: no cycle through all four.
  std::vector<int> path(16, 0);
  for (int i = 0; i + 1 < 4; ++i) path[i * 4 + i + 1] = path[(i + 1) * 4 + i] = 1;
  CHECK(link_rings(members, path).empty());
  // A triangle of single links: one ring each way. Bonded: two each way.
  std::vector<int> triangle(9, 1);
  for (int i = 0; i < 3; ++i) triangle[i * 3 + i] = 0;
  const std::vector<EndpointId> three{1, 2, 3};
  CHECK(link_rings(three, triangle).size() == 2);
  for (int& c : triangle) c *= 2;
  CHECK(link_rings(three, triangle).size() == 4);
}

TEST_CASE("a 1 GiB all-reduce on DGX-1 runs at its NVLink rings' rate, not over PCIe", "[network][direct_rings]") {
  const System& dgx1 = test::system_named("dgx1_v100.yaml");
  CollectivePoint point;
  point.bytes = direct_rings_detail::kGiB;
  const CollectiveResult r = simulate_collective(dgx1, CollectiveTuning::load(), point);
  const CollectiveTopology topology = describe_collective_topology(dgx1);
  const DirectLinkRings direct = direct_link_rings(dgx1.gpus(), shape_of(dgx1.gpus(), &topology), &topology);
  const double rings_rate = direct.ring_bytes_per_s * static_cast<double>(direct.rings.size());
  INFO("busbw " << r.busbw_bytes_per_s / 1e9 << " GB/s; rings " << rings_rate / 1e9 << " GB/s");
  CHECK(r.choice.algorithm == CollectiveAlgorithm::ring);
  // The protocol's share of the rings' summed rate; in member order a ring
  // crossing QPI reached 12 GB/s.
  CHECK(r.busbw_bytes_per_s > 0.8 * rings_rate);
  CHECK(r.busbw_bytes_per_s <= rings_rate);
}

TEST_CASE("on Gaudi 3's RoCE full mesh the rings take every link, seven of them", "[network][direct_rings]") {
  // Not RCCL's mesh (an AMD part's), yet the same shape: every accelerator
  // joined to each other one by its own three 200GbE ports.
  const System& gaudi = test::system_named("gaudi3_x8.yaml");
  const CollectiveTopology topology = describe_collective_topology(gaudi);
  const std::vector<EndpointId> gpus = gaudi.gpus();
  const DirectLinkRings direct = direct_link_rings(gpus, shape_of(gpus, &topology), &topology);
  CHECK(direct.rings.size() == 7);
  CollectivePoint point;
  point.bytes = direct_rings_detail::kGiB;
  point.algorithm = CollectiveAlgorithm::ring;
  const CollectiveResult all = simulate_collective(gaudi, CollectiveTuning::load(), point);
  point.gpus = 2;  // two accelerators: one link, one ring each way
  const CollectiveResult pair = simulate_collective(gaudi, CollectiveTuning::load(), point);
  INFO("busbw " << all.busbw_bytes_per_s / 1e9 << " GB/s against one link's " << pair.busbw_bytes_per_s / 1e9);
  CHECK(all.busbw_bytes_per_s > 5 * pair.busbw_bytes_per_s);
}

TEST_CASE("Gaudi 3's three scale-out ports carry a ring between nodes at their summed 600 Gb/s",
          "[network][direct_rings]") {
  // One accelerator per node: the ring crosses each node on its scale-out
  // NIC part, whose fabric cable is the three 200GbE ports together
  // (nics.yaml fabric_bandwidth); at one port's rate it would reach a third.
  const System& cluster = test::system_named("gaudi3_x8_x16_roce.yaml");
  CollectivePoint point;
  point.bytes = direct_rings_detail::kGiB;
  point.gpus = 16;
  point.per_node = 1;
  const CollectiveResult r = simulate_collective(cluster, CollectiveTuning::load(), point);
  const double nic_bytes_per_s = 600e9 / 8;
  INFO("busbw " << r.busbw_bytes_per_s / 1e9 << " GB/s");
  CHECK(r.busbw_bytes_per_s > 0.8 * nic_bytes_per_s);
  CHECK(r.busbw_bytes_per_s <= nic_bytes_per_s);
}
