#pragma once
// What a sweep writes: the JSON document and CSV table of every point (in
// point order, figures in a fixed format), and the terminal table sorted by
// the study's objective. Serial runs, shard merges and MPI rank 0 all write
// through here, so their outputs are the same bytes.
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "sim/study/study_file.hpp"
#include "sim/study/sweep_rows.hpp"

namespace simctl {

// Keys and units: docs/studies.md. `rows` hold every point, in point order.
nlohmann::ordered_json sweep_json(const Study& study, const std::vector<PointRow>& rows);
std::string sweep_csv(const Study& study, const std::vector<PointRow>& rows);

// The points that ran, best first by the objective (ties by point number),
// at most `top` of them (0: all), then those that did not run with their
// reasons (at most `top` too), then the counts.
std::string sweep_table(const Study& study, const std::vector<PointRow>& rows, std::size_t top);

// Writes every file to a temporary name beside it and renames them all
// only once each is written, so an error leaves no half-written output.
void write_files_atomically(const std::vector<std::pair<std::filesystem::path, std::string>>& files);

struct SweepOutputs {
  std::string json_file;  // empty: none
  std::string csv_file;
  std::string plot_dir;  // charts (sweep_plots.hpp); the JSON goes there too when json_file is empty
  std::size_t top = 20;  // rows of the terminal table
};

// Writes the requested files and returns the terminal table followed by
// one line naming each file written.
std::string write_sweep_outputs(const Study& study, const std::vector<PointRow>& rows, const SweepOutputs& outputs);

}  // namespace simctl
