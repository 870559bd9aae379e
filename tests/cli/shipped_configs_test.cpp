// Every run config shipped in configs/ must pass `simctl check`, so a
// catalogue or schema change cannot silently break what users start from.
#include <catch2/catch.hpp>
#include <filesystem>
#include <set>

#include "tests/cli/run_binary.hpp"

using simctl::testing::run_simctl;

namespace {

// Checked by bench_step instead: building its 41-million-op trace takes a
// minute and 8 GB, which a test suite on a 2-core machine cannot spend.
const std::set<std::string> kBenchOnly = {"dgx_h100x128_gpt3_175b.yaml"};

}  // namespace

TEST_CASE("every shipped run config passes check", "[cli][configs]") {
  const auto dir = std::filesystem::path(SIMCTL_SOURCE_DIR) / "configs";
  int checked = 0;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const auto name = entry.path().filename().string();
    if (entry.path().extension() != ".yaml" || kBenchOnly.count(name)) continue;
    const auto result = run_simctl("check " + entry.path().string());
    INFO(name << ": " << result.err);
    CHECK(result.exit_code == 0);
    ++checked;
  }
  CHECK(checked >= 10);
}
