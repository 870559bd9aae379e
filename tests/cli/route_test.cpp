// `simctl route` from the real binary: the hops it prints, ECMP by flow key,
// GPU ranks, and clear errors for parts that do not exist.
#include <catch2/catch.hpp>
#include <set>
#include <sstream>

#include "tests/cli/run_binary.hpp"
#include "tests/topology/dgx_h100_x4_ndr_yaml.hpp"

using simctl::testing::run_simctl;

namespace {

const std::string kCluster = "configs/systems/dgx_h100_x4_ndr.yaml";  // InfiniBand: adaptive routing

// The same cluster with its fabric hashing flows (ECMP), written once.
std::string ecmp_cluster() {
  static const std::string path = simctl::testing::write_temp_config(
      "route_ecmp.yaml", simctl::test::dgx_h100_x4_ndr_yaml(SIMCTL_SOURCE_DIR, "ecmp"));
  return path;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) out.push_back(line);
  return out;
}

// The hop lines of a route listing: those that start with a hop number.
std::vector<std::string> hop_lines(const std::string& text) {
  std::vector<std::string> out;
  for (const std::string& line : lines_of(text)) {
    if (line.size() > 4 && line[3] >= '0' && line[3] <= '9') out.push_back(line);
  }
  return out;
}

}  // namespace

TEST_CASE("route prints each hop with link kind and rate and the totals", "[cli][route]") {
  const auto r = run_simctl("route " + ecmp_cluster() + " node0.gpu0 node3.gpu5");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto hops = hop_lines(r.out);
  REQUIRE(hops.size() == 8);  // gpu psw nic leaf spine leaf nic psw gpu
  CHECK_THAT(hops[0], Catch::Contains("node0.gpu0") && Catch::Contains("node0.pcie_switch0") &&
                          Catch::Contains("pcie_gen5_x16") && Catch::Contains("64.0"));
  CHECK_THAT(hops[2], Catch::Contains("node0.nic0") && Catch::Contains("leaf0") && Catch::Contains("infiniband_ndr") &&
                          Catch::Contains("50.0"));
  CHECK_THAT(hops[3], Catch::Contains("spine"));
  CHECK_THAT(hops[7], Catch::Contains("node3.gpu5"));
  CHECK_THAT(r.out, Catch::Contains("total: 8 hops") && Catch::Contains("bottleneck 50.0 GB/s per direction"));
}

TEST_CASE("route takes GPU ranks and shows ECMP paths per flow key", "[cli][route]") {
  const std::string cluster = ecmp_cluster();
  const auto by_name = run_simctl("route " + cluster + " node0.gpu0 node3.gpu5");
  const auto by_rank = run_simctl("route " + cluster + " gpu:0 gpu:29");
  REQUIRE(by_rank.exit_code == 0);
  CHECK(hop_lines(by_rank.out) == hop_lines(by_name.out));
  std::set<std::string> spine_hops;
  for (int key = 0; key < 16; ++key) {
    const auto r = run_simctl("route " + cluster + " gpu:0 gpu:29 --flow " + std::to_string(key));
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("flow key " + std::to_string(key)));
    spine_hops.insert(hop_lines(r.out).at(3));
    CHECK(run_simctl("route " + cluster + " gpu:0 gpu:29 --flow " + std::to_string(key)).out == r.out);
  }
  CHECK(spine_hops.size() > 1);  // different flows, different spines
}

TEST_CASE("route on an InfiniBand fabric with no routing named shows the adaptive spread", "[cli][route]") {
  const auto r = run_simctl("route " + kCluster + " gpu:0 gpu:29");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto hops = hop_lines(r.out);
  REQUIRE(hops.size() >= 4);
  CHECK_THAT(hops[3], Catch::Contains("leaf0 uplinks") && Catch::Contains("even spread"));
}

TEST_CASE("route on a statically routed fabric shows the destination's one path for every flow", "[cli][route]") {
  const std::string cluster = "configs/systems/dgx_h100_x128_ndr.yaml";  // routing: static
  const auto plain = run_simctl("route " + cluster + " gpu:0 gpu:1000");
  REQUIRE(plain.exit_code == 0);
  CHECK_THAT(plain.out, Catch::Contains("static fabric routing"));
  CHECK_THAT(plain.out, Catch::Contains("spine"));  // node 0 to node 125 leaves the leaf
  for (int key = 0; key < 8; ++key) {
    const auto r = run_simctl("route " + cluster + " gpu:0 gpu:1000 --flow " + std::to_string(key));
    REQUIRE(r.exit_code == 0);
    CHECK_THAT(r.out, Catch::Contains("flow key " + std::to_string(key) + " inside nodes"));
    CHECK(hop_lines(r.out) == hop_lines(plain.out));
  }
}

TEST_CASE("route shows a connection spread over its queue pairs with each link's share", "[cli][route]") {
  const std::string root = SIMCTL_SOURCE_DIR;
  const std::string system = simctl::testing::write_temp_config("route_qps.yaml", R"(system:
  name: 4x DGX H100 with 16 queue pairs per connection
  node_templates:
    dgx_h100: {import: )" + root + R"(/configs/systems/dgx_h100.yaml}
  nodes:
    - {template: dgx_h100, count: 4}
  fabric: {kind: fat_tree, tiers: 2, radix: 64, rail_optimised: true, link: infiniband_ndr, nics: "nic[*]",
           routing: ecmp, qps_per_connection: 16}
)");
  const auto r = run_simctl("route " + system + " gpu:0 gpu:29 --flow 3");
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("16 queue pairs per connection hashed apart") && Catch::Contains("share"));
  // The NIC cables carry the whole connection; the leaf's uplinks split it.
  double uplink_shares = 0;
  int uplinks = 0;
  for (const std::string& line : hop_lines(r.out)) {
    const double share = std::stod(line.substr(line.rfind(' ', line.size() - 3) + 1));
    if (line.find("leaf0") != std::string::npos && line.find("spine") != std::string::npos) {
      uplink_shares += share;
      ++uplinks;
    } else if (line.find("nic0 ") != std::string::npos) {
      CHECK(share == 100.0);
    }
  }
  CHECK(uplinks > 1);
  CHECK(uplink_shares == Approx(100.0));
  CHECK(run_simctl("route " + system + " gpu:0 gpu:29 --flow 9").out == r.out);  // made once per connection
}

TEST_CASE("route names close matches for an unknown part and the valid ranks", "[cli][route]") {
  const auto typo = run_simctl("route " + kCluster + " node0.gpu9 node1.gpu0");
  CHECK(typo.exit_code == 2);
  CHECK_THAT(typo.err, Catch::Contains("no part named 'node0.gpu9'") && Catch::Contains("did you mean") &&
                           Catch::Contains("node0.gpu0"));
  const auto rank = run_simctl("route " + kCluster + " gpu:0 gpu:32");
  CHECK(rank.exit_code == 2);
  CHECK_THAT(rank.err, Catch::Contains("out of range") && Catch::Contains("gpu:0 to gpu:31"));
  const auto missing = run_simctl("route " + kCluster + " gpu:0");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("route CONFIG SRC DST"));
}
