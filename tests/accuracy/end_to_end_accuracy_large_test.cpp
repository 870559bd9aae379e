// The reference runs on hundreds to thousands of GPUs, replayed rank by
// rank, and the whole generated table of docs/accuracy.md (its summary lines
// need every point). Each run takes tens of seconds, so this test is tagged
// `slow` (a ctest label, tests/CMakeLists.txt): the default suite runs it,
// the sanitizer run (scripts/sanitize) leaves it out.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "accuracy_doc.hpp"
#include "sim/accuracy/accuracy_markdown.hpp"

using namespace simctl;
using namespace simctl::testing;

TEST_CASE("runs on many GPUs are reproduced and the whole table is current", "[accuracy][plans][docs][slow]") {
  const ReferenceRuns runs = load_reference_runs(reference_runs_path());
  std::map<std::string, ReferenceResult> results;
  int large = 0;
  for (const ReferenceRun& run : runs.runs) {
    const ReferenceResult result = simulate_reference_run(run);
    results[run.id] = result;
    if (!run.large) continue;
    ++large;
    std::printf("%s\n", accuracy_row(run, result).c_str());
    INFO(run.id << ": measured " << run.measured << ", simulated " << result.simulated);
    if (run.tolerance) CHECK(std::abs(result.error) <= *run.tolerance);
    if (run.baseline_error) CHECK(std::abs(result.error) <= *run.baseline_error + 0.005);
  }
  CHECK(large >= 1);
  INFO("docs/accuracy.md's end-to-end table is out of date; " << kRegenerate);
  CHECK(marked_block(read_data_file("docs/accuracy.md"), kAccuracyMarkers) == render_accuracy_block(runs, results));
}
