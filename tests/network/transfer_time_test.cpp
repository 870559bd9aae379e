#include "models/network/transfer_time.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace simctl;

namespace {

TransferStage stage(const char* name, double latency_ns, double gb_per_s, Bytes granularity) {
  return TransferStage{name, static_cast<TimePs>(latency_ns * 1e3), Bandwidth::gigabytes_per_s(gb_per_s), granularity};
}

}  // namespace

TEST_CASE("a transfer pays every stage's latency once and streams at the slowest stage", "[network][transfer]") {
  const std::vector<TransferStage> path{stage("dram", 100, 100, 64), stage("pcie", 250, 25, 1),
                                        stage("hbm", 500, 3000, 32)};
  const TransferTime t = transfer_time(path, 1'000'000'000);
  CHECK(t.latency == 850'000);
  CHECK(t.bottleneck == "pcie");
  CHECK(t.time == 850'000 + 40'000'000'000);  // 1 GB at 25 GB/s = 40 ms
}

TEST_CASE("each stage moves whole units of its granularity", "[network][transfer]") {
  // 100 B from a disk with 4 KiB blocks reads 4096 B at 1 GB/s.
  const TransferTime disk = transfer_time({stage("disk", 0, 1, 4096)}, 100);
  CHECK(disk.bytes_moved == 4096);
  CHECK(disk.time >= 4'096'000);  // 4096 B at 1 GB/s, rounded up to whole picoseconds
  CHECK(disk.time <= 4'096'001);
  // 65 B from a 64 B-line cache moves two lines.
  CHECK(transfer_time({stage("l1", 1, 64, 64)}, 65).bytes_moved == 128);
  CHECK(round_up(0, 64) == 0);
  CHECK(round_up(64, 64) == 64);
}

TEST_CASE("small transfers are latency-bound, large ones bandwidth-bound", "[network][transfer]") {
  const std::vector<TransferStage> path{stage("nvme", 60'000, 7.45, 4096)};
  const double small = transfer_time(path, 4096).effective_bytes_per_s();
  const double large = transfer_time(path, Bytes{1} << 30).effective_bytes_per_s();
  CHECK(small < 0.1e9);
  CHECK(large > 7.0e9);
}

TEST_CASE("a staged move runs its two moves back to back", "[network][transfer]") {
  const TransferTime memcpy = transfer_time({stage("memcpy", 100, 10, 64)}, 1'000'000);
  const TransferTime dma = transfer_time({stage("pcie", 250, 50, 1)}, 1'000'000);
  const TransferTime both = staged(memcpy, dma);
  CHECK(both.time == memcpy.time + dma.time);
  CHECK(both.bottleneck == "memcpy");
  CHECK(both.effective_bytes_per_s() < dma.effective_bytes_per_s());
}

TEST_CASE("bad transfers are refused", "[network][transfer]") {
  CHECK_THROWS_AS(transfer_time({stage("x", 0, 1, 1)}, -1), std::invalid_argument);
  CHECK_THROWS_AS(transfer_time({stage("x", 0, 1, 0)}, 1), std::invalid_argument);
}
