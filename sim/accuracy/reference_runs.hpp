#pragma once
// The published end-to-end training runs of
// workloads/measured/reference_points.yaml: what each measured, where it was
// published, and whether a constant of the model was taken from it.
#include <optional>
#include <string>
#include <vector>

namespace simctl {

struct ReferenceRun {
  std::string id;
  std::string gpu;     // the GPU generation ("A100", "H100"): docs/accuracy.md groups by it
  std::string config;  // relative to the data root
  std::string metric;  // kMetric* below
  double measured = 0.0;
  std::optional<double> tolerance;  // relative; absent: reported, not asserted yet
  // |error| the point had when it was last accepted; tests keep it from growing.
  std::optional<double> baseline_error;
  bool in_sample = false;  // a constant was fitted to it (sample: in)
  bool large = false;      // thousands of ranks: the slow-labelled runs only
  std::string source;
  std::string system;
  std::string plan;
};

// A published run simctl cannot express yet, and why.
struct UnexpressibleRun {
  std::string id;
  std::string gpu;
  std::string measured;  // as published, with units
  std::string source;
  std::string reason;
};

struct ReferenceRuns {
  std::vector<ReferenceRun> runs;
  std::vector<UnexpressibleRun> not_expressible;
};

// Reads the file; a malformed entry throws ConfigError naming file:line and
// the field.
ReferenceRuns load_reference_runs(const std::string& path);

// The file under the data root.
std::string reference_runs_path();

inline constexpr const char* kMetricStepSeconds = "step_s";
inline constexpr const char* kMetricHardwareTflopsPerGpu = "hardware_tflops_per_gpu";
inline constexpr const char* kMetricTokensPerSecondPerGpu = "tokens_per_s_per_gpu";

}  // namespace simctl
