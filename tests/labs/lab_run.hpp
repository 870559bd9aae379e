#pragma once
// Runs `simctl lab run N` as a student does and reads back its key-figures
// table: label -> value (as printed) and unit, so a lab test can assert its
// finding on the table students read.
#include <map>
#include <sstream>
#include <stdexcept>
#include <string>

#include "tests/cli/run_binary.hpp"

namespace simctl::testing {

struct LabFigureValue {
  std::string text;  // as printed, e.g. "22,538" or "126.64"
  std::string unit;

  double number() const {
    std::string digits;
    for (char c : text)
      if (c != ',') digits += c;
    return std::stod(digits);
  }
};

struct LabRunOutput {
  CommandResult result;
  std::map<std::string, LabFigureValue> figures;

  const LabFigureValue& at(const std::string& label) const {
    const auto it = figures.find(label);
    if (it == figures.end()) throw std::runtime_error("lab run printed no figure '" + label + "':\n" + result.out);
    return it->second;
  }
  double number(const std::string& label) const { return at(label).number(); }
};

// Rows after "Key figures:" and its header: "  LABEL  VALUE  UNIT", the label
// padded to the longest, so columns split at the last two runs of 2+ spaces.
inline std::map<std::string, LabFigureValue> parse_lab_figures(const std::string& out) {
  std::map<std::string, LabFigureValue> figures;
  const auto start = out.find("Key figures:\n");
  if (start == std::string::npos) return figures;
  std::istringstream lines(out.substr(start));
  std::string line;
  std::getline(lines, line);  // "Key figures:"
  std::getline(lines, line);  // header
  while (std::getline(lines, line) && line.rfind("  ", 0) == 0) {
    const auto unit_gap = line.rfind("  ");
    const std::string unit = line.substr(unit_gap + 2);
    std::string rest = line.substr(0, unit_gap);
    const auto value_start = rest.find_last_of(' ') + 1;
    const std::string value = rest.substr(value_start);
    std::string label = rest.substr(2, value_start - 2);
    label.erase(label.find_last_not_of(' ') + 1);
    figures[label] = {value, unit};
  }
  return figures;
}

inline LabRunOutput run_lab(int number, const std::string& extra = "") {
  LabRunOutput run;
  run.result = run_simctl("lab run " + std::to_string(number) + (extra.empty() ? "" : " " + extra));
  run.figures = parse_lab_figures(run.result.out);
  return run;
}

}  // namespace simctl::testing
