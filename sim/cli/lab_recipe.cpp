#include "sim/cli/lab_recipe.hpp"

#include <algorithm>
#include <cctype>
#include <regex>
#include <set>

#include "sim/config/config_node.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/config/data_root.hpp"

namespace simctl {
namespace {

constexpr const char* kRecipeFile = "lab.yaml";

// "05-scaling-out" -> 5; 0 when the folder is not a lab's.
int lab_number(const std::string& folder) {
  if (folder.size() < 4 || !std::isdigit(static_cast<unsigned char>(folder[0])) ||
      !std::isdigit(static_cast<unsigned char>(folder[1])) || folder[2] != '-') {
    return 0;
  }
  return std::stoi(folder.substr(0, 2));
}

LabStep read_step(const ConfigNode& node) {
  expect_section(node, "lab.steps[]");
  LabStep step{node.string("id"), node.string("simctl"), node.string_or("plot", ""),
               static_cast<int>(node.integer_or("exit_code", 0))};
  if (step.command.empty()) node.child("simctl").fail("expected a simctl command line, e.g. run configs/x.yaml");
  return step;
}

LabFigure read_figure(const ConfigNode& node, const std::set<std::string>& steps) {
  expect_section(node, "lab.figures[]");
  LabFigure figure{node.string("figure"),      node.string("step"),         node.string("match"),
                   node.string_or("unit", ""), node.string_or("after", ""), node.location()};
  if (!steps.count(figure.step)) {
    node.child("step").fail("no step has id '" + figure.step +
                            "'; valid: " + join_choices(std::vector<std::string>(steps.begin(), steps.end())));
  }
  try {
    const auto groups = std::regex(figure.pattern).mark_count();
    if (groups != 1 && groups != 2) {
      node.child("match").fail(
          "the pattern needs one capture group (the value), e.g. 'Step time +([0-9.]+) ms', or two (the value, then "
          "its unit as printed, e.g. '([0-9.]+) (ns|us|ms|s)')");
    }
    if ((groups == 1) == figure.unit.empty()) {
      node.fail(groups == 1 ? "needs `unit` (e.g. ms, GiB, samples/s): its pattern captures the value alone"
                            : "has no `unit`: its pattern's second capture group gives the unit as printed");
    }
  } catch (const std::regex_error& e) {
    node.child("match").fail(std::string("not a valid regular expression: ") + e.what());
  }
  try {
    std::regex{figure.after};
  } catch (const std::regex_error& e) {
    node.child("after").fail(std::string("not a valid regular expression: ") + e.what());
  }
  return figure;
}

LabChart read_chart(const ConfigNode& node) {
  expect_section(node, "lab.charts[]");
  LabChart chart{node.string("png"), node.string_or("from", ""), node.string_or("script", "")};
  if (chart.from.empty() == chart.script.empty()) {
    node.fail("a chart needs one of `from` (a PNG a step's --plot wrote) or `script` (a python script drawing {png})");
  }
  if (chart.png.find('/') != std::string::npos) node.child("png").fail("expected a file name, without a folder");
  return chart;
}

}  // namespace

LabRecipe load_lab_recipe(const std::filesystem::path& file) {
  const ConfigNode root = ConfigNode::load_file(file.string());
  expect_section(root, "lab");
  LabRecipe lab;
  lab.folder = file.parent_path();
  lab.number = lab_number(lab.folder.filename().string());
  if (lab.number == 0)
    root.fail("a lab's folder is named NN-name (e.g. 05-scaling-out), not '" + lab.folder.filename().string() + "'");
  lab.title = root.string("title");
  lab.question = root.string("question");
  std::set<std::string> ids;
  for (const ConfigNode& node : root.child("steps").elements()) {
    lab.steps.push_back(read_step(node));
    if (!ids.insert(lab.steps.back().id).second) node.child("id").fail("another step has this id");
  }
  for (const ConfigNode& node : root.child("figures").elements()) lab.figures.push_back(read_figure(node, ids));
  if (const auto charts = root.optional_child("charts")) {
    for (const ConfigNode& node : charts->elements()) lab.charts.push_back(read_chart(node));
  }
  return lab;
}

std::vector<LabRecipe> load_labs(const std::filesystem::path& labs_dir) {
  std::vector<LabRecipe> labs;
  if (!std::filesystem::is_directory(labs_dir)) return labs;
  for (const auto& entry : std::filesystem::directory_iterator(labs_dir)) {
    const auto file = entry.path() / kRecipeFile;
    if (entry.is_directory() && lab_number(entry.path().filename().string()) != 0 && std::filesystem::exists(file)) {
      labs.push_back(load_lab_recipe(file));
    }
  }
  std::sort(labs.begin(), labs.end(), [](const LabRecipe& a, const LabRecipe& b) { return a.number < b.number; });
  return labs;
}

std::filesystem::path default_labs_dir() { return std::filesystem::path(data_root()) / "labs"; }

}  // namespace simctl
