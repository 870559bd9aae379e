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

// The labs' run configs (files with a top-level `workload:`; the labs also
// hold system files and studies) must pass too: students run them as given.
// A config written to show a plan that does not fit says so with the line
// `# expect: out of memory`, and must be refused for exactly that.
TEST_CASE("every lab's run config passes check", "[cli][configs][labs]") {
  const auto dir = std::filesystem::path(SIMCTL_SOURCE_DIR) / "labs";
  int checked = 0;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir)) {
    if (entry.path().extension() != ".yaml") continue;
    const std::string text = simctl::testing::read_text(entry.path());
    if (text.rfind("workload:", 0) != 0 && text.find("\nworkload:") == std::string::npos) continue;
    const auto result = run_simctl("check " + entry.path().string());
    INFO(entry.path().string() << ": " << result.err);
    if (text.find("# expect: out of memory") != std::string::npos) {
      CHECK(result.exit_code == 2);  // a config error
      CHECK(result.err.find("out of memory") != std::string::npos);
    } else {
      CHECK(result.exit_code == 0);
    }
    ++checked;
  }
  CHECK(checked >= 10);
}
