// `simctl lab list` and `simctl lab run N [--plot DIR]`: a course lab's
// recipe (labs/NN-name/lab.yaml) run through the ordinary commands, in this
// process, with the lab's key figures picked out of what they print.
#include <unistd.h>

#include <cstdlib>
#include <iomanip>
#include <map>
#include <regex>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/cli/lab_recipe.hpp"
#include "sim/cli/options.hpp"
#include "sim/config/data_root.hpp"
#include "sim/report/plot_script.hpp"

namespace po = boost::program_options;

namespace simctl {
namespace {

constexpr const char* kPython = "/usr/bin/python3";

std::filesystem::path labs_dir(const ParsedOptions& options) {
  return options.values.count("labs") ? std::filesystem::path(options.values["labs"].as<std::string>())
                                      : default_labs_dir();
}

std::vector<LabRecipe> labs_or_fail(const std::filesystem::path& dir) {
  std::vector<LabRecipe> labs = load_labs(dir);
  if (labs.empty()) throw UsageError("no labs under '" + dir.string() + "' (each is NN-name/lab.yaml)");
  return labs;
}

std::string valid_labs(const std::vector<LabRecipe>& labs) {
  std::string text;
  for (const LabRecipe& lab : labs) {
    text += (text.empty() ? "" : ", ") + std::to_string(lab.number) + " (" + lab.folder.filename().string() + ")";
  }
  return text;
}

const LabRecipe& find_lab(const std::vector<LabRecipe>& labs, const std::string& text) {
  const bool digits = !text.empty() && text.size() <= 3 && text.find_first_not_of("0123456789") == std::string::npos;
  for (const LabRecipe& lab : labs) {
    if (digits && lab.number == std::stoi(text)) return lab;
  }
  throw UsageError("no lab '" + text + "'; valid labs are " + valid_labs(labs) + " (simctl lab list)");
}

// Placeholders a recipe's command lines may use.
struct LabPaths {
  std::filesystem::path work;  // scratch folder for files one step writes and another reads
  std::filesystem::path plot;  // --plot DIR, empty without it
};

std::string substituted(std::string text, const LabPaths& paths, const std::string& png = "") {
  const std::map<std::string, std::string> values{
      {"{work}", paths.work.string()}, {"{plot}", paths.plot.string()}, {"{png}", png}};
  for (const auto& [key, value] : values) {
    for (auto at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

// The recipe's paths are the source tree's (labs/..., configs/...), as the
// README writes them: a relative path that exists there is taken from there,
// so `lab run` works from any folder.
std::string resolved(const std::string& word) {
  if (word.empty() || word[0] == '-' || std::filesystem::path(word).is_absolute()) return word;
  const auto in_tree = std::filesystem::path(data_root()) / word;
  return std::filesystem::exists(in_tree) ? in_tree.string() : word;
}

// Words split at spaces; "double quotes" keep a word's spaces (a legend's labels).
std::vector<std::string> words_of(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> words;
  for (std::string word; in >> std::quoted(word);) words.push_back(resolved(word));
  return words;
}

struct StepOutput {
  std::string text;  // stdout then stderr, as the student's terminal shows them
};

StepOutput run_step(const LabRecipe& lab, const LabStep& step, const LabPaths& paths) {
  std::string line = substituted(step.command, paths);
  if (!paths.plot.empty() && !step.plot_args.empty()) line += " " + substituted(step.plot_args, paths);
  std::ostringstream out, err;
  const int code = run_main(words_of(line), out, err);
  if (code != step.exit_code) {
    throw std::runtime_error("lab " + std::to_string(lab.number) + " step '" + step.id + "' (simctl " + line +
                             ") exited " + std::to_string(code) + ", expected " + std::to_string(step.exit_code) +
                             ": " + err.str());
  }
  return {out.str() + err.str()};
}

struct FigureValue {
  std::string value;
  std::string unit;
};

FigureValue figure_value(const LabFigure& figure, const std::string& output) {
  const std::regex pattern(figure.pattern), after(figure.after);
  bool searching = figure.after.empty();
  std::istringstream lines(output);
  std::smatch match;
  for (std::string line; std::getline(lines, line);) {
    if (!searching) {
      searching = std::regex_search(line, after);
    } else if (std::regex_search(line, match, pattern)) {
      return {match[1].str(), match.size() > 2 ? match[2].str() : figure.unit};
    }
  }
  throw std::runtime_error(figure.where.to_string() + ": figure '" + figure.label + "': no line of step '" +
                           figure.step + "' matches '" + figure.pattern + "'" +
                           (figure.after.empty() ? "" : " after a line matching '" + figure.after + "'") +
                           " (did the command's output change?)");
}

void draw_chart(const LabChart& chart, const LabPaths& paths, std::ostream& out) {
  const auto png = paths.plot / chart.png;
  if (!chart.from.empty()) {
    std::filesystem::copy_file(substituted(chart.from, paths), png, std::filesystem::copy_options::overwrite_existing);
  } else {
    std::string command = kPython;
    for (const std::string& word : words_of(substituted(chart.script, paths, png.string())))
      command += " " + shell_quoted(word);
    if (std::system((command + " >/dev/null").c_str()) != 0) {
      throw std::runtime_error("the chart script failed: " + command);
    }
  }
  out << "wrote " << png.string() << "\n";
}

// A scratch folder removed however the run ends.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(int lab)
      : path(std::filesystem::temp_directory_path() /
             ("simctl-lab-" + std::to_string(lab) + "-" + std::to_string(::getpid()))) {
    std::filesystem::create_directories(path);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
};

void print_figures(const LabRecipe& lab, const std::map<std::string, StepOutput>& outputs, std::ostream& out) {
  std::size_t width = std::string("figure").size();
  for (const LabFigure& f : lab.figures) width = std::max(width, f.label.size());
  out << "\nKey figures:\n  " << std::left << std::setw(static_cast<int>(width)) << "figure"
      << "  " << std::right << std::setw(14) << "value"
      << "  unit\n";
  for (const LabFigure& f : lab.figures) {
    const FigureValue v = figure_value(f, outputs.at(f.step).text);
    out << "  " << std::left << std::setw(static_cast<int>(width)) << f.label << "  " << std::right << std::setw(14)
        << v.value << "  " << v.unit << "\n";
  }
}

}  // namespace

po::options_description lab_list_options() {
  po::options_description named;
  named.add_options()("labs", po::value<std::string>()->value_name("DIR"),
                      "the labs folder (default: labs/ of the source tree simctl was built from)");
  return named;
}

po::options_description lab_run_options() {
  po::options_description named = lab_list_options();
  named.add_options()("plot", po::value<std::string>()->value_name("DIR"),
                      "also write the lab's chart(s) (PNG) into DIR; needs python3 with matplotlib");
  return named;
}

int lab_list_command_main(const ParsedOptions& options, std::ostream& out) {
  for (const LabRecipe& lab : labs_or_fail(labs_dir(options))) {
    out << std::setw(2) << lab.number << "  " << lab.folder.filename().string() << ": " << lab.title << "\n    "
        << lab.question << "\n";
  }
  out << "\n`simctl lab run N` runs lab N and prints its key figures; `--plot DIR` writes its charts.\n";
  return 0;
}

int lab_run_command_main(const ParsedOptions& options, std::ostream& out) {
  const std::vector<LabRecipe> labs = labs_or_fail(labs_dir(options));
  const LabRecipe& lab = find_lab(labs, options.positionals[0]);
  const ScratchDir scratch(lab.number);
  LabPaths paths{scratch.path, {}};
  if (options.values.count("plot")) {
    paths.plot = options.values["plot"].as<std::string>();
    require_matplotlib();
    std::filesystem::create_directories(paths.plot);
  }
  out << "Lab " << lab.number << ": " << lab.title << "\n"
      << lab.question << "\n\nRan (README: " << (lab.folder.filename() / "README.md").string() << "):\n";
  std::map<std::string, StepOutput> outputs;
  for (const LabStep& step : lab.steps) {
    out << "  simctl " << step.command << (step.exit_code != 0 ? "   (refused, as the lab expects)" : "") << "\n";
    outputs.emplace(step.id, run_step(lab, step, paths));
  }
  print_figures(lab, outputs, out);
  if (paths.plot.empty()) return 0;
  out << "\n";
  for (const LabChart& chart : lab.charts) draw_chart(chart, paths, out);
  return 0;
}

}  // namespace simctl
