// Lab 4: nn.DataParallel against DistributedDataParallel on 8 H100s, each
// set against the same job on one GPU.
#include <catch2/catch.hpp>

#include "tests/labs/lab_report.hpp"
#include "tests/labs/lab_run.hpp"

using namespace simctl;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab04 {

namespace {

const std::string kLab = "labs/04-dataparallel-vs-ddp/";

bool names_gpu0(const std::string& text) { return text.find("node0.gpu0") != std::string::npos; }

}  // namespace

TEST_CASE("Lab 4: DDP scales almost linearly, DataParallel well below it", "[labs]") {
  const testing::LabRun one = testing::run_lab_config(kLab + "single.yaml");
  const testing::LabRun dp = testing::run_lab_config(kLab + "data_parallel.yaml");
  const testing::LabRun ddp = testing::run_lab_config(kLab + "ddp.yaml");

  const double dp_speedup = dp.report.samples_per_s / one.report.samples_per_s;
  const double ddp_speedup = ddp.report.samples_per_s / one.report.samples_per_s;
  INFO("speedup over 1 GPU: DataParallel " << dp_speedup << "x, DDP " << ddp_speedup << "x");
  CHECK(ddp_speedup > 7.5);
  CHECK(ddp_speedup <= 8.0);
  CHECK(dp_speedup > 1.0);
  CHECK(dp_speedup < 0.8 * ddp_speedup);

  // Why: the master's work and links. The others wait for rank 0, and DDP
  // hides its all-reduce under backward where DataParallel cannot.
  const double dp_exposed = ps_to_seconds(dp.report.mean.exposed_communication());
  const double ddp_exposed = ps_to_seconds(ddp.report.mean.exposed_communication());
  CHECK(dp_exposed > 5 * ddp_exposed);
  CHECK(names_gpu0(dp.report.bottleneck));
  CHECK_FALSE(names_gpu0(ddp.report.bottleneck));
  REQUIRE_FALSE(dp.report.busiest_links.empty());
  CHECK(names_gpu0(dp.report.busiest_links.front().name));
}

TEST_CASE("Lab 4: at micro-batch 8 DataParallel's master runs out of memory where DDP's ranks fit", "[labs]") {
  const auto dp = testing::run_simctl("memory " + testing::config_path(kLab + "data_parallel_mb8.yaml"));
  INFO(dp.out << dp.err);
  CHECK(dp.exit_code == 1);
  CHECK(dp.out.find("OUT OF MEMORY: master (rank 0)") != std::string::npos);
  const auto ddp = testing::run_simctl("memory " + testing::config_path(kLab + "ddp_mb8.yaml"));
  INFO(ddp.out << ddp.err);
  CHECK(ddp.exit_code == 0);
  CHECK(ddp.out.find("OUT OF MEMORY") == std::string::npos);
}

TEST_CASE("Lab 4: simctl lab run 4 prints DDP's near-linear speedup and DataParallel's shortfall", "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(4);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  const double one = lab.number("throughput, 1 GPU");
  CHECK(lab.number("throughput, DDP on 8 GPUs") / one > 7.5);
  CHECK(lab.number("throughput, DataParallel on 8 GPUs") < 0.8 * lab.number("throughput, DDP on 8 GPUs"));
  CHECK(lab.number("step time, DataParallel") > 1.25 * lab.number("step time, DDP"));
  CHECK(lab.number("exposed communication, DataParallel") > 5 * lab.number("exposed communication, DDP"));
  CHECK(lab.at("throughput, 1 GPU").unit == "samples/s");
}

}  // namespace lab04
