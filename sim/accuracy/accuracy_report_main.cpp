// simctl-accuracy-report: replays every end-to-end reference run of
// workloads/measured/reference_points.yaml and prints docs/accuracy.md's
// generated table and its peak-memory table (workloads/measured/
// memory_points.yaml), or with --update DOC README rewrites DOC's blocks and
// README's copy of the end-to-end one in place. Developer tool; tests/accuracy checks the
// committed blocks equal what this writes.
#include <chrono>
#include <cstring>
#include <iostream>

#include "sim/accuracy/accuracy_markdown.hpp"
#include "sim/accuracy/memory_markdown.hpp"
#include "sim/core/text_file.hpp"

namespace {

std::string render() {
  const simctl::ReferenceRuns runs = simctl::load_reference_runs(simctl::reference_runs_path());
  std::map<std::string, simctl::ReferenceResult> results;
  for (const simctl::ReferenceRun& run : runs.runs) {
    const auto start = std::chrono::steady_clock::now();
    results[run.id] = simctl::simulate_reference_run(run);
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    std::cerr << simctl::accuracy_row(run, results[run.id]) << "  (" << took.count() << " s to simulate)\n";
  }
  return simctl::render_accuracy_block(runs, results);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const std::string memory = simctl::render_memory_block(simctl::load_memory_points(simctl::memory_points_path()));
    if (argc == 1) {
      std::cout << render() << "\n\n" << memory << "\n";
      return 0;
    }
    if (argc == 4 && std::strcmp(argv[1], "--update") == 0) {
      const std::string block = render();
      const std::string doc =
          simctl::replace_marked_block(simctl::read_text_file(argv[2]), simctl::kAccuracyMarkers, block);
      simctl::write_text_file(argv[2], simctl::replace_marked_block(doc, simctl::kMemoryAccuracyMarkers, memory));
      simctl::write_text_file(
          argv[3], simctl::replace_marked_block(simctl::read_text_file(argv[3]), simctl::kReadmeAccuracyMarkers,
                                                simctl::readme_accuracy_block(block)));
      return 0;
    }
    std::cerr << "usage: simctl-accuracy-report [--update docs/accuracy.md README.md]\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "simctl-accuracy-report: " << e.what() << "\n";
    return 1;
  }
}
