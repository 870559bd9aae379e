#include "sim/accuracy/reference_runs.hpp"

#include "sim/config/config_error.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/config/data_root.hpp"

namespace simctl {

namespace {

std::optional<double> optional_number(const ConfigNode& node, std::string_view key) {
  if (const auto child = node.optional_child(key)) return child->as_number();
  return std::nullopt;
}

ReferenceRun read_run(const ConfigNode& p) {
  expect_section(p, "reference_runs_file.reference_points[]");
  ReferenceRun run;
  run.id = p.string("id");
  run.gpu = p.string("gpu");
  run.config = p.string("config");
  run.metric =
      p.child("metric").as_choice({kMetricStepSeconds, kMetricHardwareTflopsPerGpu, kMetricTokensPerSecondPerGpu});
  run.measured = p.number("measured");
  if (run.measured <= 0.0) throw ConfigError(p.child("measured").location(), "measured", "must be > 0");
  run.tolerance = optional_number(p, "tolerance");
  if (run.tolerance && *run.tolerance <= 0.0)
    throw ConfigError(p.child("tolerance").location(), "tolerance", "must be a relative error > 0 (0.10 = 10 %)");
  run.baseline_error = optional_number(p, "baseline_error");
  run.in_sample = p.child("sample").as_choice({"in", "out"}) == "in";
  run.large = p.bool_or("large", false);
  run.source = p.string("source");
  run.system = p.string("system");
  run.plan = p.string("plan");
  return run;
}

UnexpressibleRun read_unexpressible(const ConfigNode& p) {
  expect_section(p, "reference_runs_file.not_expressible[]");
  return {p.string("id"), p.string("gpu"), p.string("measured"), p.string("source"), p.string("reason")};
}

}  // namespace

ReferenceRuns load_reference_runs(const std::string& path) {
  const ConfigNode file = ConfigNode::load_file(path);
  expect_section(file, "reference_runs_file");
  ReferenceRuns out;
  for (const ConfigNode& p : file.child("reference_points").elements()) out.runs.push_back(read_run(p));
  if (const auto rest = file.optional_child("not_expressible")) {
    for (const ConfigNode& p : rest->elements()) out.not_expressible.push_back(read_unexpressible(p));
  }
  return out;
}

std::string reference_runs_path() { return data_root() + "/workloads/measured/reference_points.yaml"; }

}  // namespace simctl
