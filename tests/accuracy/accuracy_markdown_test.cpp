// docs/accuracy.md's generated block: groups, summary statistics, the
// README's copy and the markers.
#include "sim/accuracy/accuracy_markdown.hpp"

#include <catch2/catch.hpp>

#include "accuracy_doc.hpp"

using namespace simctl;

namespace {

ReferenceRun run(const std::string& id, const std::string& gpu, bool in_sample) {
  ReferenceRun r;
  r.id = id;
  r.gpu = gpu;
  r.metric = kMetricStepSeconds;
  r.measured = 2.0;
  r.in_sample = in_sample;
  return r;
}

ReferenceResult result(double error) { return {8, 2.0 * (1.0 + error), error, Category::compute_bound, 0.75}; }

}  // namespace

TEST_CASE("a row gives GPUs, both figures with units, the error and what dominates", "[accuracy][docs]") {
  CHECK(accuracy_row(run("P", "H100", false), result(0.1)) ==
        "| P | 8 | 2.000 s/step | 2.200 s/step | +10.0 % | out | compute_bound 75 % |");
}

TEST_CASE("each GPU group gets its table and median and max |error| in and out of sample", "[accuracy][docs]") {
  ReferenceRuns runs;
  runs.runs = {run("a1", "A100", false), run("h1", "H100", false), run("h2", "H200", false), run("h3", "H100", false),
               run("h4", "H100", true)};
  runs.not_expressible = {{"x", "H100", "1 s", "src", "FP8"}};
  const std::map<std::string, ReferenceResult> results{
      {"a1", result(-0.03)}, {"h1", result(0.02)}, {"h2", result(-0.06)}, {"h3", result(0.10)}, {"h4", result(0.2)}};
  const std::string block = render_accuracy_block(runs, results);
  CHECK(block.find("### A100\n") < block.find("### H100 / H200\n"));
  CHECK(block.find("A100: out of sample: 1 point, median |error| 3.0 %, max 3.0 %; in sample: no points.") !=
        std::string::npos);
  CHECK(block.find("H100 / H200: out of sample: 3 points, median |error| 6.0 %, max 10.0 %; in sample: 1 point, "
                   "median |error| 20.0 %, max 20.0 %.") != std::string::npos);
  CHECK(block.find("| x | H100 | 1 s | FP8 | src |") != std::string::npos);
  CHECK(marked_block("intro\n" + block + "\ntail\n", kAccuracyMarkers) == block);
}

TEST_CASE("the README's copy is the block's body under its own markers", "[accuracy][docs]") {
  const std::string block = std::string(kAccuracyMarkers.begin) + "\n| table |\n" + std::string(kAccuracyMarkers.end);
  CHECK(readme_accuracy_block(block) ==
        std::string(kReadmeAccuracyMarkers.begin) + "\n| table |\n" + std::string(kReadmeAccuracyMarkers.end));
  CHECK_THROWS_AS(readme_accuracy_block("text before " + block), std::invalid_argument);
  const std::string readme = "# R\n" + std::string(kReadmeAccuracyMarkers.begin) + "\nold\n" +
                             std::string(kReadmeAccuracyMarkers.end) + "\nmore\n";
  CHECK(replace_marked_block(readme, kReadmeAccuracyMarkers, readme_accuracy_block(block)) ==
        "# R\n" + readme_accuracy_block(block) + "\nmore\n");
}

TEST_CASE("README.md's accuracy tables are docs/accuracy.md's", "[accuracy][docs]") {
  const std::string doc_block = marked_block(read_data_file("docs/accuracy.md"), kAccuracyMarkers);
  INFO("README.md's copy differs; " << kRegenerate);
  CHECK(marked_block(read_data_file("README.md"), kReadmeAccuracyMarkers) == readme_accuracy_block(doc_block));
}
