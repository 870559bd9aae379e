// `simctl collective`, the nccl-tests twin, as a user runs it.
#include <catch2/catch.hpp>
#include <sstream>

#include "tests/cli/run_binary.hpp"

using simctl::testing::run_simctl;

namespace {

std::vector<std::string> data_rows(const std::string& out) {
  std::vector<std::string> rows;
  std::istringstream in(out);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line[0] != '#') rows.push_back(line);
  }
  return rows;
}

}  // namespace

TEST_CASE("simctl collective prints nccl-tests columns for each size", "[cli][collective]") {
  const auto r =
      run_simctl("collective configs/dgx_h100_x8.yaml --op all_reduce --gpus 8 --min 8B --max 8GiB --factor 2");
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("size") && Catch::Contains("count") && Catch::Contains("type") &&
                        Catch::Contains("redop") && Catch::Contains("time") && Catch::Contains("algbw") &&
                        Catch::Contains("busbw") && Catch::Contains("(us)") && Catch::Contains("(GB/s)"));
  const auto rows = data_rows(r.out);
  REQUIRE(rows.size() == 31);  // 8 B .. 8 GiB by 2
  std::istringstream last(rows.back());
  double size = 0, count = 0, time_us = 0, algbw = 0, busbw = 0;
  std::string type, redop;
  last >> size >> count >> type >> redop >> time_us >> algbw >> busbw;
  CHECK(size == 8589934592.0);
  CHECK(count == 2147483648.0);
  CHECK(type == "float");
  CHECK(redop == "sum");
  CHECK(busbw == Approx(algbw * 2 * 7 / 8).epsilon(0.01));
  CHECK(busbw > 400);  // NVLS on H100: above the NVLink wire rate
}

TEST_CASE("simctl collective honours --algo and a system file", "[cli][collective]") {
  const auto r =
      run_simctl("collective configs/systems/dgx_h100.yaml --op all_reduce --algo ring --min 1GiB --max 1GiB");
  REQUIRE(r.exit_code == 0);
  const auto rows = data_rows(r.out);
  REQUIRE(rows.size() == 1);
  CHECK_THAT(rows[0], Catch::Contains("ring/Simple"));
}

TEST_CASE("simctl collective rejects bad options with exit code 2", "[cli][collective]") {
  CHECK(run_simctl("collective configs/dgx_h100_x8.yaml --op allreduce").exit_code == 2);
  CHECK(run_simctl("collective configs/dgx_h100_x8.yaml --gpus 9").exit_code == 2);
  CHECK(run_simctl("collective configs/dgx_h100_x8.yaml --min 1GB --max 1MB").exit_code == 2);
  CHECK(run_simctl("collective configs/dgx_h100_x8.yaml --min lots").exit_code == 2);
  const auto uneven = run_simctl("collective configs/dgx_h100_x8.yaml --gpus 8 --per-node 3");
  CHECK(uneven.exit_code == 2);
  CHECK_THAT(uneven.err, Catch::Contains("--per-node"));
  const auto r = run_simctl("collective configs/dgx_h100_x8.yaml --op all_to_all --algo nvls --max 8B");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("nvls"));
}

TEST_CASE("simctl collective --per-node runs nccl-tests' N nodes x G GPUs", "[cli][collective]") {
  const auto r = run_simctl(
      "collective configs/systems/dgx_h100_x4_ndr.yaml --op all_gather --gpus 4 --per-node 1 --min 1GiB --max 1GiB");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  CHECK_THAT(r.out, Catch::Contains("on 4 GPUs (1 per node)"));
  const auto rows = data_rows(r.out);
  REQUIRE(rows.size() == 1);
  CHECK_THAT(rows[0], Catch::Contains("ring/"));
}

TEST_CASE("simctl collective --algo sharp without --sharp says what to add", "[cli][collective]") {
  const std::string run = "collective configs/systems/dgx_h100_x4_ndr.yaml --op all_reduce --min 1GiB --max 1GiB";
  const auto refused = run_simctl(run + " --algo sharp");
  CHECK(refused.exit_code == 2);
  CHECK_THAT(refused.err, Catch::Contains("add --sharp if the fabric's switches reduce (InfiniBand SHARP)"));
  // With it, the same 32 GPUs over 4 nodes reduce in the fabric's switches.
  const auto ran = run_simctl(run + " --algo sharp --sharp");
  INFO(ran.err);
  REQUIRE(ran.exit_code == 0);
  const auto rows = data_rows(ran.out);
  REQUIRE(rows.size() == 1);
  CHECK_THAT(rows[0], Catch::Contains("sharp/"));
}
