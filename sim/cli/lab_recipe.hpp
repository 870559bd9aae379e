#pragma once
// A course lab's recipe (labs/NN-name/lab.yaml): the simctl commands its
// README's "What to run" lists, the key figures to pick out of what they
// print, and the charts `simctl lab run N --plot DIR` writes. A recipe is
// data: `simctl lab` runs it through the ordinary commands and adds no
// simulation of its own.
#include <filesystem>
#include <string>
#include <vector>

#include "sim/config/config_error.hpp"

namespace simctl {

struct LabStep {
  std::string id;         // what figures name it by
  std::string command;    // "run labs/04-dataparallel-vs-ddp/ddp.yaml", as a student types it after `simctl`
  std::string plot_args;  // appended with --plot ("--plot {work}/roofline")
  int exit_code = 0;      // what the command must return (2: a refused config the lab shows)
};

struct LabFigure {
  std::string label;    // "DDP step, 8 GPUs"
  std::string step;     // the step whose printed output holds it
  std::string pattern;  // ECMAScript regex, matched line by line: group 1 the value, group 2 (if any) its unit
  std::string unit;     // "ms", "GiB", "samples/s"; empty when the pattern captures the unit
  std::string after;    // optional regex: search from the first line it matches (a device's section)
  SourceLocation where;
};

// A chart copied from a step's --plot output (`from`) or drawn by a python
// script (`script`, its arguments included, {png} where the PNG goes).
struct LabChart {
  std::string png;  // the file name written into the --plot DIR
  std::string from;
  std::string script;
};

struct LabRecipe {
  int number = 0;                // from the folder's "NN-" prefix
  std::filesystem::path folder;  // labs/NN-name
  std::string title;
  std::string question;
  std::vector<LabStep> steps;
  std::vector<LabFigure> figures;
  std::vector<LabChart> charts;
};

// Reads and checks one recipe (ConfigError naming file:line and the field).
LabRecipe load_lab_recipe(const std::filesystem::path& file);

// Every labs_dir/NN-*/lab.yaml, by lab number.
std::vector<LabRecipe> load_labs(const std::filesystem::path& labs_dir);

// <data root>/labs: the labs of the source tree simctl was built from.
std::filesystem::path default_labs_dir();

}  // namespace simctl
