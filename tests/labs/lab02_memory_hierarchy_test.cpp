// Lab 2: the memory hierarchy and storage. Each level down the hierarchy
// (L1, L2, L3, DRAM, then NVMe, SATA SSD, HDD) is slower to reach and slower
// to stream from, as the transfer model computes it from the catalogue; and
// one disk feeding 8 GPUs training ResNet-50 sets the images/s when it is an
// HDD (its read rate over the bytes per image), while an NVMe keeps the GPUs
// busy.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "models/network/link_kinds.hpp"
#include "sim/exec/system_transfer.hpp"
#include "sim/topology/system_config.hpp"
#include "tests/labs/lab_run.hpp"
#include "tests/labs/lab_sweep.hpp"

using namespace simctl;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab02 {

namespace {

constexpr const char* kDir = "labs/02-memory-hierarchy/";

struct Workstation {
  DeviceCatalogue catalogue = DeviceCatalogue::load();
  System system =
      load_system_file(testing::source_path(std::string(kDir) + "workstation.yaml"), catalogue, LinkKindTable::load());

  // Reading `bytes` from `where` into the CPU's cores (a cache level alone,
  // or a disk into DRAM).
  TransferTime read(const std::string& where, Bytes bytes) const {
    const TransferEnd from = parse_transfer_end(system, catalogue, where);
    const bool level = where.find('@') != std::string::npos;
    const TransferEnd to = level ? from : parse_transfer_end(system, catalogue, "node0.dram");
    return system_transfer(system, catalogue, from, to, bytes, false);
  }
};

}  // namespace

TEST_CASE("lab 2: each level down the hierarchy is slower to reach and to stream from", "[labs]") {
  const Workstation ws;
  const std::vector<std::string> levels{"node0.cpu@l1", "node0.cpu@l2", "node0.cpu@l3", "node0.cpu@dram",
                                        "node0.nvme",   "node0.ssd",    "node0.hdd"};
  for (std::size_t i = 1; i < levels.size(); ++i) {
    const TransferTime near_small = ws.read(levels[i - 1], 64), far_small = ws.read(levels[i], 64);
    const TransferTime near_big = ws.read(levels[i - 1], Bytes{1} << 30), far_big = ws.read(levels[i], Bytes{1} << 30);
    INFO(levels[i - 1] << " against " << levels[i]);
    CHECK(near_small.latency < far_small.latency);
    CHECK(near_big.time < far_big.time);
  }
  // HBM streams faster than anything on the CPU side, yet its first byte is
  // later than DRAM's.
  const TransferEnd gpu = parse_transfer_end(ws.system, ws.catalogue, "gpu:0");
  const TransferTime hbm = system_transfer(ws.system, ws.catalogue, gpu, gpu, Bytes{1} << 30, false);
  CHECK(hbm.time < ws.read("node0.cpu@l1", Bytes{1} << 30).time);
  CHECK(hbm.latency > ws.read("node0.cpu@dram", 64).latency);
  // Granularity: a 100-byte read from a disk moves a whole 4 KiB block.
  CHECK(ws.read("node0.nvme", 100).bytes_moved == 4096);
}

TEST_CASE("lab 2: simctl transfer prints the sweep with units", "[labs]") {
  const testing::CommandResult r =
      testing::run_simctl("transfer " + testing::source_path(std::string(kDir) + "workstation.yaml") +
                          " node0.hdd gpu:0 --min 4KiB --max 1GiB --factor 16");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK(r.out.find("bound by") != std::string::npos);
  CHECK(r.out.find(" ms ") != std::string::npos);
  CHECK(r.out.find("MB/s") != std::string::npos);
  // A level the catalogue does not give is refused, with the valid ones.
  const testing::CommandResult bad = testing::run_simctl(
      "transfer " + testing::source_path(std::string(kDir) + "workstation.yaml") + " node0.cpu@l4 node0.dram");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("valid: l1, l2, l3, dram") != std::string::npos);
}

// A 1 GiB "L1" read at L1's rate had been printed (and quoted by the lab) as
// if 1 GiB could stay in a 48 KiB cache: rows past a level's size are marked.
TEST_CASE("lab 2: a read larger than a cache is marked as the rate of a buffer that fits", "[labs]") {
  const std::string system = testing::source_path(std::string(kDir) + "workstation.yaml");
  const testing::CommandResult l1 = testing::run_simctl("transfer " + system + " node0.cpu@l1 node0.cpu@l1");
  REQUIRE(l1.exit_code == 0);
  CHECK_THAT(l1.out, Catch::Contains("16 KiB     16 KiB"));
  CHECK_THAT(l1.out, !Catch::Contains("(one core, 64 B lines) *\n    16 KiB"));
  CHECK_THAT(l1.out, Catch::Matches("[\\s\\S]*\n +64 KiB [^\n]*\\*\n[\\s\\S]*"));  // 64 KiB > 48 KiB
  CHECK_THAT(l1.out, Catch::Contains("* larger than l1's 48 KiB, so it cannot stay in l1"));
  const testing::CommandResult l3 = testing::run_simctl("transfer " + system + " node0.cpu@l3 node0.cpu@l3");
  CHECK_THAT(l3.out, Catch::Matches("[\\s\\S]*\n +64 MiB [^\n*]*\n[\\s\\S]*"));  // fits 105 MiB: no mark
  CHECK_THAT(l3.out, Catch::Contains("* larger than l3's 105 MiB"));
  const testing::CommandResult dram = testing::run_simctl("transfer " + system + " node0.cpu@dram node0.cpu@dram");
  CHECK_THAT(dram.out, !Catch::Contains("* larger than"));
}

TEST_CASE("lab 2: an HDD starves 8 GPUs training ResNet-50, and an NVMe keeps them busy", "[labs]") {
  const auto rows = testing::run_lab_sweep(std::string(kDir) + "storage_study.yaml", "lab02");
  REQUIRE(rows.size() == 3);  // hdd, sata ssd, nvme in study order
  const auto images = [&](std::size_t i) { return testing::number(rows[i], "samples_per_s"); };
  const auto loading_share = [&](std::size_t i) {
    return testing::number(rows[i], "data_loading_ms") / testing::number(rows[i], "step_time_ms");
  };
  const double bytes_per_image = 110.0 * 1024;
  const double hdd_rate = DeviceCatalogue::load().storage("hdd-sata-exos-x18").read_bandwidth.bytes_per_s;
  INFO("images/s: HDD " << images(0) << ", SATA SSD " << images(1) << ", NVMe " << images(2));
  // Storage-bound: images/s is the disk's read rate over the bytes per image.
  CHECK(images(0) > 0.9 * hdd_rate / bytes_per_image);
  CHECK(images(0) < 1.02 * hdd_rate / bytes_per_image);
  CHECK(loading_share(0) > 0.8);
  CHECK(images(0) < images(1));
  CHECK(images(1) < images(2));
  // NVMe: the step is the GPUs' (loading is only the host-to-device copy).
  CHECK(loading_share(2) < 0.1);
  CHECK(images(2) > 10 * images(0));
}

TEST_CASE("Lab 2: simctl lab run 2 prints the hierarchy's latencies and which disk feeds 8 GPUs", "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(2);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  for (const char* level : {"L1", "L2", "L3", "DRAM"}) CHECK(lab.at(std::string(level) + ", 64 B: time").unit == "ns");
  CHECK(lab.number("L1, 64 B: time") < lab.number("L2, 64 B: time"));
  CHECK(lab.number("L2, 64 B: time") < lab.number("L3, 64 B: time"));
  CHECK(lab.number("L3, 64 B: time") < lab.number("DRAM, 64 B: time"));
  CHECK(lab.at("HDD -> DRAM, 64 B: time").unit == "ms");
  CHECK(lab.number("8x H100 ResNet-50 fed by the HDD") < lab.number("8x H100 ResNet-50 fed by the SATA SSD"));
  CHECK(lab.number("8x H100 ResNet-50 fed by the SATA SSD") * 4 < lab.number("8x H100 ResNet-50 fed by the NVMe"));
  CHECK(lab.at("HDD run is").text == "input-bound");
  CHECK(lab.at("NVMe run is").text != "input-bound");
  // Each cache's rate is read at a size that fits in it.
  CHECK(lab.at("L1, 16 KiB (fits its 48 KiB): effective").unit == "GB/s");
  CHECK(lab.number("L1, 16 KiB (fits its 48 KiB): effective") > lab.number("L2, 1 MiB (fits its 2 MiB): effective"));
  CHECK(lab.number("L2, 1 MiB (fits its 2 MiB): effective") > lab.number("L3, 64 MiB (fits its 105 MiB): effective"));
}

}  // namespace lab02
