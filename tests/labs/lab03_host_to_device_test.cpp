// Lab 3: host to device and back. The host-to-device copy of each batch is
// slower from pageable memory than from pinned, faster on PCIe Gen5 than
// Gen3, and slower per GPU when GPUs share a PCIe switch's upstream link;
// and its share of the training step, found by sweeping the batch, grows
// with the batch and settles: copies do not stop mattering at large batches,
// they matter least at small ones, where launches and small kernels rule.
#include <catch2/catch.hpp>
#include <string>

#include "tests/labs/lab_run.hpp"
#include "tests/labs/lab_sweep.hpp"

using namespace simctl;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab03 {

namespace {

constexpr const char* kDir = "labs/03-host-to-device/";

double copy_ms(const testing::CsvRow& row) { return testing::number(row, "data_loading_ms"); }
double copy_share(const testing::CsvRow& row) { return copy_ms(row) / testing::number(row, "step_time_ms"); }

}  // namespace

TEST_CASE("lab 3: pageable copies are slower than pinned, and Gen5 faster than Gen3", "[labs]") {
  // Points: (gen3, pinned), (gen3, pageable), (gen4, ...), (gen5, ...).
  const auto rows = testing::run_lab_sweep(std::string(kDir) + "pcie_study.yaml", "lab03_pcie");
  REQUIRE(rows.size() == 6);
  for (std::size_t gen = 0; gen < 3; ++gen) {
    INFO("generation " << gen + 3 << ": pinned " << copy_ms(rows[2 * gen]) << " ms, pageable "
                       << copy_ms(rows[2 * gen + 1]) << " ms");
    CHECK(copy_ms(rows[2 * gen + 1]) > copy_ms(rows[2 * gen]));
  }
  // The DMA overlaps the CPU's staging memcpy, which sets a pageable copy's
  // pace: a faster slot buys pinned copies time, pageable ones almost none.
  CHECK(copy_ms(rows[5]) > 0.85 * copy_ms(rows[1]));  // Gen5 pageable against Gen3 pageable
  CHECK(copy_ms(rows[5]) > 2 * copy_ms(rows[4]));     // Gen5: pageable against pinned
  CHECK(copy_ms(rows[4]) < 0.6 * copy_ms(rows[0]));   // Gen5 pinned against Gen3 pinned
  CHECK(copy_ms(rows[2]) < copy_ms(rows[0]));
  CHECK(testing::number(rows[4], "samples_per_s") > testing::number(rows[0], "samples_per_s"));
}

TEST_CASE("lab 3: GPUs sharing one PCIe switch copy slower each than one alone", "[labs]") {
  const auto rows = testing::run_lab_sweep(std::string(kDir) + "switch_study.yaml", "lab03_switch");
  REQUIRE(rows.size() == 3);  // 1, 2, 4 GPUs behind the switch
  INFO("copy per GPU: 1 GPU " << copy_ms(rows[0]) << " ms, 2 GPUs " << copy_ms(rows[1]) << " ms, 4 GPUs "
                              << copy_ms(rows[2]) << " ms");
  CHECK(copy_ms(rows[1]) > 1.5 * copy_ms(rows[0]));
  CHECK(copy_ms(rows[2]) > 1.5 * copy_ms(rows[1]));
}

TEST_CASE("lab 3: the copy's share of the step grows with the batch and settles, hidden at small batches", "[labs]") {
  const auto rows = testing::run_lab_sweep(std::string(kDir) + "batch_study.yaml", "lab03_batch");
  REQUIRE(rows.size() == 9);  // batch 1, 2, 4, ..., 256
  // The batch at which the copies start to matter (over 5 % of the step),
  // found from the simulated steps.
  const double threshold = 0.05;
  int crossing = 0;
  for (const testing::CsvRow& row : rows) {
    INFO("batch " << row.at("workload.micro_batch") << ": copy " << copy_ms(row) << " ms of " << row.at("step_time_ms")
                  << " ms");
    if (crossing == 0 && copy_share(row) > threshold) crossing = std::stoi(row.at("workload.micro_batch"));
  }
  INFO("copies pass " << threshold * 100 << " % of the step from batch " << crossing);
  // Below it the step is kernel launches and small kernels, which the copy
  // hides under; above it both grow with the batch, so the share settles
  // at (bytes per image / PCIe rate) / (GPU time per image).
  CHECK(crossing > 1);
  CHECK(crossing < 256);
  for (std::size_t i = 1; i < rows.size(); ++i) CHECK(copy_share(rows[i]) >= copy_share(rows[i - 1]));
  CHECK(copy_share(rows.front()) < copy_share(rows.back()) / 3);
  CHECK(copy_share(rows[8]) < 1.05 * copy_share(rows[7]));
}

TEST_CASE("Lab 3: simctl lab run 3 prints what pageable memory, the PCIe generation and a switch cost",
          "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(3);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  REQUIRE(lab.at("256 MiB host->GPU, pinned").unit == lab.at("256 MiB host->GPU, pageable").unit);
  CHECK(lab.number("256 MiB host->GPU, pageable") > 2 * lab.number("256 MiB host->GPU, pinned"));
  CHECK(lab.number("ResNet-50 step, Gen3 pageable") > lab.number("ResNet-50 step, Gen3 pinned"));
  CHECK(lab.number("ResNet-50 step, Gen5 pinned") < lab.number("ResNet-50 step, Gen3 pinned"));
  // Pageable throws away most of what the faster slot bought: Gen5 pageable is slower than Gen3 pinned.
  CHECK(lab.number("ResNet-50 step, Gen5 pageable") > lab.number("ResNet-50 step, Gen3 pinned"));
  CHECK(lab.number("step, 4 GPUs behind one switch") > lab.number("step, 1 GPU behind the switch"));
  // The copy never goes away with a bigger batch: a few percent of the step at batch 128.
  CHECK(lab.number("batch 128, Gen4 pinned: copy share") > 5.0);
  CHECK(lab.number("batch 128, Gen4 pinned: copy share") < 10.0);
}

}  // namespace lab03
