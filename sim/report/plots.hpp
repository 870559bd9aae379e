#pragma once
// Renders a run's charts by running the matplotlib scripts in plots/ (Debian's
// python3-matplotlib, through /usr/bin/python3) on the JSON and CSV files
// simctl has written. Each script draws one kind of chart.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace simctl {

struct PlotRequest {
  std::filesystem::path out_dir;       // where the PNGs go
  std::filesystem::path json_file;     // the run's --json summary
  std::filesystem::path csv_dir;       // the run's --csv tables
  std::string csv_extension = ".csv";  // ".csv.gz" for gzipped tables
  std::vector<std::uint32_t> timeline_ranks;
  bool memory = false;  // the run has a memory estimate to draw
};

// Returns the PNGs written. Throws std::runtime_error naming the script and
// the fix when python3 or matplotlib is missing or a script fails.
std::vector<std::filesystem::path> render_plots(const PlotRequest& request);

// At most `count` ranks spread evenly from the first to the last, so the
// timeline shows both ends of a pipeline.
std::vector<std::uint32_t> spread_ranks(std::uint32_t ranks, std::uint32_t count);

}  // namespace simctl
