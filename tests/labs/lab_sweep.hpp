#pragma once
// Runs a lab's study with the built binary, as its README tells students
// (`simctl sweep STUDY --csv FILE`), and reads the CSV back: one row per
// point, by point number, as column -> text.
#include <stdexcept>
#include <string>
#include <vector>

#include "tests/report/report_outputs.hpp"

namespace simctl::testing {

inline std::vector<CsvRow> run_lab_sweep(const std::string& study, const std::string& name) {
  TempDir dir(name);
  const auto csv = dir.path() / "sweep.csv";
  const CommandResult r = run_simctl("sweep " + source_path(study) + " --jobs 2 --csv " + csv.string());
  if (r.exit_code != 0)
    throw std::runtime_error("simctl sweep " + study + " exited " + std::to_string(r.exit_code) + ": " + r.err);
  std::vector<CsvRow> rows = read_csv(csv);
  for (const CsvRow& row : rows) {
    if (row.at("status") != "ok")
      throw std::runtime_error(study + " point " + row.at("point") + ": " + row.at("reason"));
  }
  return rows;
}

inline double number(const CsvRow& row, const std::string& column) { return std::stod(row.at(column)); }

}  // namespace simctl::testing
