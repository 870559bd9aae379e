#include "sim/accuracy/accuracy_markdown.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

#include "sim/core/format_number.hpp"

namespace simctl {

namespace {

std::string with_unit(const ReferenceRun& run, double value) {
  if (run.metric == kMetricStepSeconds) return format_number("%.3f s/step", value);
  if (run.metric == kMetricTokensPerSecondPerGpu) return format_number("%.0f tokens/s/GPU", value);
  return format_number("%.1f TFLOP/s/GPU", value);
}

std::string percent(double fraction) { return format_number("%+.1f %%", 100.0 * fraction); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 == 1 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

std::string error_summary(const char* label, const std::vector<double>& abs_errors) {
  if (abs_errors.empty()) return std::string(label) + ": no points";
  const double max = *std::max_element(abs_errors.begin(), abs_errors.end());
  return std::string(label) + ": " + std::to_string(abs_errors.size()) +
         (abs_errors.size() == 1 ? " point" : " points") + ", median |error| " +
         format_number("%.1f %%", 100.0 * median(abs_errors)) + ", max " + format_number("%.1f %%", 100.0 * max);
}

namespace {

std::string group_table(const std::string& group, const ReferenceRuns& runs,
                        const std::map<std::string, ReferenceResult>& results) {
  std::string out = "### " + group + "\n\n";
  out += "| point | GPUs | measured | simulated | error | sample | dominates the simulated step |\n";
  out += "| --- | ---: | ---: | ---: | ---: | --- | --- |\n";
  std::vector<double> in, out_of_sample;
  for (const ReferenceRun& run : runs.runs) {
    if (accuracy_group(run.gpu) != group) continue;
    const ReferenceResult& r = results.at(run.id);
    out += accuracy_row(run, r) + "\n";
    (run.in_sample ? in : out_of_sample).push_back(std::abs(r.error));
  }
  out += "\n" + group + ": " + error_summary("out of sample", out_of_sample) + "; " + error_summary("in sample", in) +
         ".\n";
  return out;
}

std::string not_expressible_table(const ReferenceRuns& runs) {
  std::string out = "### Published runs simctl cannot express yet\n\n";
  out += "| point | GPU | measured | why not yet | source |\n| --- | --- | --- | --- | --- |\n";
  for (const UnexpressibleRun& r : runs.not_expressible)
    out += "| " + r.id + " | " + r.gpu + " | " + r.measured + " | " + r.reason + " | " + r.source + " |\n";
  return out;
}

}  // namespace

std::string accuracy_group(const std::string& gpu) {
  if (gpu == "A100") return "A100";
  if (gpu == "H100" || gpu == "H200") return "H100 / H200";
  return "Across generations and vendors";
}

std::string accuracy_row(const ReferenceRun& run, const ReferenceResult& result) {
  return "| " + run.id + " | " + std::to_string(result.gpus) + " | " + with_unit(run, run.measured) + " | " +
         with_unit(run, result.simulated) + " | " + percent(result.error) + " | " + (run.in_sample ? "in" : "out") +
         " | " + std::string(to_string(result.dominant)) + " " +
         format_number("%.0f %%", 100.0 * result.dominant_share) + " |";
}

std::string render_accuracy_block(const ReferenceRuns& runs, const std::map<std::string, ReferenceResult>& results) {
  std::vector<std::string> groups;
  for (const ReferenceRun& run : runs.runs) {
    const std::string g = accuracy_group(run.gpu);
    if (std::find(groups.begin(), groups.end(), g) == groups.end()) groups.push_back(g);
  }
  std::string out = std::string(kAccuracyMarkers.begin) + "\n";
  for (const std::string& g : groups) out += "\n" + group_table(g, runs, results);
  if (!runs.not_expressible.empty()) out += "\n" + not_expressible_table(runs);
  return out + "\n" + std::string(kAccuracyMarkers.end);
}

std::string readme_accuracy_block(const std::string& accuracy_block) {
  if (marked_block(accuracy_block, kAccuracyMarkers) != accuracy_block)
    throw std::invalid_argument("not an end-to-end accuracy block: text outside its markers");
  const std::string body =
      accuracy_block.substr(kAccuracyMarkers.begin.size(),
                            accuracy_block.size() - kAccuracyMarkers.begin.size() - kAccuracyMarkers.end.size());
  return std::string(kReadmeAccuracyMarkers.begin) + body + std::string(kReadmeAccuracyMarkers.end);
}

}  // namespace simctl
