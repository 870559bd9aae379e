// End-to-end accuracy: the published runs of
// workloads/measured/reference_points.yaml replayed rank by rank on the
// systems they ran on. Each point with a tolerance is asserted within it, an
// A100 point may not drift above the error it had when last accepted, and
// docs/accuracy.md must hold every cheap point's row as it now simulates.
// Tagged plain_only: the sanitized run leaves it out (docs/testing.md, "CI
// time budget", says why).
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>

#include "accuracy_doc.hpp"
#include "sim/accuracy/accuracy_markdown.hpp"

using namespace simctl;
using namespace simctl::testing;

TEST_CASE("published training runs are reproduced and docs/accuracy.md says so",
          "[accuracy][plans][docs][plain_only]") {
  const ReferenceRuns runs = load_reference_runs(reference_runs_path());
  REQUIRE(runs.runs.size() >= 10);
  const std::string doc_block = marked_block(read_data_file("docs/accuracy.md"), kAccuracyMarkers);
  std::vector<double> asserted_out_of_sample;
  for (const ReferenceRun& run : runs.runs) {
    if (run.large) continue;  // end_to_end_accuracy_large_test.cpp
    const ReferenceResult result = simulate_reference_run(run);
    const std::string row = accuracy_row(run, result);
    std::printf("%s\n", row.c_str());
    INFO(run.id << ": measured " << run.measured << ", simulated " << result.simulated);
    if (run.tolerance) {
      CHECK(std::abs(result.error) <= *run.tolerance);
      if (!run.in_sample) asserted_out_of_sample.push_back(std::abs(result.error));
    }
    // Half a percentage point of slack: the last digit the doc prints.
    if (run.baseline_error) CHECK(std::abs(result.error) <= *run.baseline_error + 0.005);
    INFO("docs/accuracy.md does not hold this row; " << kRegenerate << "\nrow: " << row);
    CHECK(doc_block.find(row + "\n") != std::string::npos);
  }
  // The asserted points not fitted carry the claim; together they must be close, too.
  REQUIRE(!asserted_out_of_sample.empty());
  double sum = 0.0;
  for (double e : asserted_out_of_sample) sum += e;
  CHECK(sum / static_cast<double>(asserted_out_of_sample.size()) < 0.06);
}
