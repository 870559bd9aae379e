// Lab 5: scaling ResNet-50 out from 1 GPU to 4 servers over four networks
// and three topologies, judged on the sweeps the lab tells students to run.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "tests/labs/lab_report.hpp"
#include "tests/labs/lab_run.hpp"

using namespace simctl;
using nlohmann::json;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab05 {

namespace {

const std::string kLab = "labs/05-scaling-out/";

struct Point {
  std::string network;
  int gpus = 0;
  double samples_per_s = 0;
  double exposed_dp_share = 0;  // of the step
  std::string bottleneck;
};

std::vector<Point> points(const json& result) {
  std::vector<Point> out;
  for (const json& p : result["points"]) {
    REQUIRE(p["status"] == "ok");
    out.push_back({p["axes"]["system.links[0].kind"].get<std::string>() + " " +
                       p["axes"]["system.links[0].bandwidth"].get<std::string>(),
                   p["gpus"].get<int>(), p["samples_per_s"].get<double>(),
                   p["breakdown_ms"]["comm_data"].get<double>() / p["step_time_ms"].get<double>(),
                   p["bottleneck"].get<std::string>()});
  }
  return out;
}

}  // namespace

TEST_CASE("Lab 5: a slow network stops the scaling once training leaves the server", "[labs]") {
  const std::vector<Point> all = points(testing::run_lab_sweep(kLab + "scaling.yaml"));
  REQUIRE(all.size() == 16);
  std::map<std::string, double> one_gpu;
  for (const Point& p : all)
    if (p.gpus == 1) one_gpu[p.network] = p.samples_per_s;
  std::map<std::string, std::map<int, double>> efficiency;  // network -> GPUs -> fraction of linear
  for (const Point& p : all) efficiency[p.network][p.gpus] = p.samples_per_s / (p.gpus * one_gpu[p.network]);

  for (const auto& [network, by_gpus] : efficiency) {
    INFO(network);
    // Inside one server the network carries nothing: every network scales alike.
    CHECK(by_gpus.at(8) == Approx(efficiency.begin()->second.at(8)).epsilon(1e-9));
    CHECK(by_gpus.at(8) > 0.95);
    CHECK(by_gpus.at(32) <= by_gpus.at(16) + 1e-9);
  }
  const auto& slow = efficiency.at("ethernet 25 Gb/s");
  const auto& fast = efficiency.at("infiniband_ndr 400 Gb/s");
  INFO("32 GPUs: 25 GbE " << slow.at(32) << ", NDR " << fast.at(32));
  CHECK(slow.at(16) < 0.85);
  CHECK(slow.at(32) < 0.7);
  CHECK(fast.at(32) > 0.9);
  CHECK(efficiency.at("ethernet 100 Gb/s").at(32) > 0.9);
  for (const Point& p : all) {
    if (p.network != "ethernet 25 Gb/s" || p.gpus != 32) continue;
    CHECK(p.exposed_dp_share > 0.3);
    // The verdict blames the 25 GbE cables, not the PCIe links the same flows cross.
    CHECK_THAT(p.bottleneck, Catch::Contains("nic\u2192switch links"));
  }
}

TEST_CASE("Lab 5: DDP's ring all-reduce ignores the topology, an all-to-all does not", "[labs]") {
  const json topologies = testing::run_lab_sweep(kLab + "topologies.yaml");
  REQUIRE(topologies["points"].size() == 3);
  const double star = topologies["points"][0]["samples_per_s"].get<double>();
  for (const json& p : topologies["points"]) CHECK(p["samples_per_s"].get<double>() == Approx(star).epsilon(0.01));

  auto all_to_all_us = [](const std::string& system) {
    const auto r = testing::run_simctl("collective " + testing::config_path(kLab + system) +
                                       " --op all_to_all --min 64MiB --max 64MiB");
    INFO(r.out << r.err);
    REQUIRE(r.exit_code == 0);
    const auto line = r.out.substr(r.out.rfind("67108864"));
    std::istringstream fields(line);
    std::string size, count, type, redop;
    double time_us = 0;
    fields >> size >> count >> type >> redop >> time_us;
    return time_us;
  };
  const double star_us = all_to_all_us("star.yaml");
  const double ring_us = all_to_all_us("ring.yaml");
  const double tree_us = all_to_all_us("tree.yaml");
  INFO("all-to-all 64 MiB: star " << star_us << " us, ring " << ring_us << " us, tree " << tree_us << " us");
  // Each switch-to-switch cable of the 4-ring carries no more than a NIC's
  // cable; a tree uplink carries two servers' cross-leaf traffic (4 units
  // against a NIC's 3).
  CHECK(ring_us == Approx(star_us).epsilon(0.02));
  CHECK(tree_us / star_us == Approx(4.0 / 3.0).epsilon(0.05));
}

TEST_CASE("Lab 5: simctl lab run 5 prints where the network dominates and draws the scaling chart", "[labs][lab_run]") {
  const auto dir = std::filesystem::temp_directory_path() / ("lab05_plot_" + std::to_string(::getpid()));
  const auto lab = simctl::testing::run_lab(5, "--plot " + dir.string());
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  const double one = lab.number("1 GPU");
  CHECK(lab.number("8 GPUs, 1 server") / (8 * one) > 0.95);
  CHECK(lab.number("32 GPUs, 25 GbE") / (32 * one) < 0.7);
  CHECK(lab.number("32 GPUs, InfiniBand NDR") / (32 * one) > 0.9);
  CHECK(lab.number("DDP on a ring, 32 GPUs") == Approx(lab.number("DDP on a star, 32 GPUs")).epsilon(0.01));
  CHECK(lab.number("all-to-all 64 MiB, tree") / lab.number("all-to-all 64 MiB, star") ==
        Approx(4.0 / 3.0).epsilon(0.05));
  // The chart, from the lab's own script, is a PNG.
  const std::string png = simctl::testing::read_text(dir / "scaling.png");
  CHECK(png.substr(0, 8) == "\x89PNG\r\n\x1a\n");
  CHECK_THAT(lab.result.out, Catch::Contains("wrote " + (dir / "scaling.png").string()));
  std::filesystem::remove_all(dir);
}

}  // namespace lab05
