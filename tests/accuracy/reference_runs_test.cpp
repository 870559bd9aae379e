// workloads/measured/reference_points.yaml: what the shipped file promises,
// and a clear error naming file:line and the field for each kind of bad entry.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "sim/accuracy/accuracy_markdown.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/data_root.hpp"

using namespace simctl;

namespace {

const char* const kGoodEntry = R"(  - id: P
    gpu: H100
    config: configs/dgx_h100_x8.yaml
    metric: step_s
    measured: 1.0
    sample: out
    source: "somewhere"
    system: one DGX H100
    plan: DP 8
)";

// One file per process: ctest -j runs this file's test cases side by side.
std::string edited_path() {
  return (std::filesystem::temp_directory_path() /
          ("simctl_reference_runs_test_" + std::to_string(::getpid()) + ".yaml"))
      .string();
}

// Loads a reference file holding the good entry with `from` replaced by `to`.
ReferenceRuns load_edited(const std::string& from, const std::string& to) {
  std::string entry = kGoodEntry;
  if (!from.empty()) entry.replace(entry.find(from), from.size(), to);
  std::ofstream(edited_path()) << "reference_points:\n" << entry;
  return load_reference_runs(edited_path());
}

}  // namespace

TEST_CASE("the shipped reference file keeps in- and out-of-sample points apart", "[accuracy][reference]") {
  const ReferenceRuns runs = load_reference_runs(reference_runs_path());
  int hopper = 0, hopper_out = 0;
  for (const ReferenceRun& run : runs.runs) {
    INFO(run.id);
    CHECK(!run.source.empty());
    CHECK(std::filesystem::exists(std::filesystem::path(data_root()) / run.config));
    if (accuracy_group(run.gpu) != "H100 / H200") continue;
    ++hopper;
    if (!run.in_sample) ++hopper_out;
  }
  CHECK(hopper >= 6);
  CHECK(2 * hopper_out >= hopper);  // at least half of the Hopper points held out
  // The runs simctl cannot express yet are read, each with why and where
  // from (their count falls as runs become expressible).
  CHECK(!runs.not_expressible.empty());
  for (const UnexpressibleRun& run : runs.not_expressible) {
    INFO(run.id);
    CHECK(!run.source.empty());
    CHECK(!run.reason.empty());
  }
}

TEST_CASE("a good reference entry loads", "[accuracy][reference]") {
  const ReferenceRuns runs = load_edited("", "");
  REQUIRE(runs.runs.size() == 1);
  CHECK(runs.runs[0].metric == "step_s");
  CHECK_FALSE(runs.runs[0].in_sample);
  CHECK_FALSE(runs.runs[0].tolerance.has_value());
}

TEST_CASE("bad reference entries name the file, line and field", "[accuracy][reference][errors]") {
  using Catch::Matchers::Contains;
  CHECK_THROWS_WITH(load_edited("metric: step_s", "metric: tokens"), Contains(edited_path() + ":5") &&
                                                                         Contains("'tokens' is not valid") &&
                                                                         Contains("hardware_tflops_per_gpu"));
  CHECK_THROWS_WITH(load_edited("sample: out", "sample: maybe"),
                    Contains(":7") && Contains("'maybe' is not valid") && Contains("in"));
  CHECK_THROWS_WITH(load_edited("measured: 1.0", "measured: 0"),
                    Contains(":6") && Contains("field 'measured'") && Contains("> 0"));
  CHECK_THROWS_WITH(load_edited("sample: out", "sample: out\n    tolerance: -0.1"),
                    Contains("field 'tolerance'") && Contains("> 0"));
  CHECK_THROWS_WITH(load_edited("plan: DP 8", "plan: DP 8\n    fitted: true"), Contains("fitted"));
  CHECK_THROWS_WITH(load_edited("    source: \"somewhere\"\n", ""), Contains("source"));
}
