#pragma once
// The published end-to-end runs of workloads/measured/reference_points.yaml
// and how a replay is turned into each one's metric.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <string>
#include <vector>

#include "plan_run.hpp"
#include "sim/config/config_node.hpp"

namespace simctl::testing {

struct EndToEndPoint {
  std::string id;
  std::string config;
  std::string metric;
  double measured = 0.0;
  double tolerance = 0.0;
  bool fitted = false;
  bool large = false;  // thousands of ranks: run by the slow-labelled test only
};

inline std::vector<EndToEndPoint> load_reference_points() {
  const auto file = ConfigNode::load_file(config_path("workloads/measured/reference_points.yaml"));
  std::vector<EndToEndPoint> points;
  for (const ConfigNode& p : file.child("reference_points").elements()) {
    points.push_back({p.child("id").as_string(), p.child("config").as_string(), p.child("metric").as_string(),
                      p.child("measured").as_number(), p.child("tolerance").as_number(), p.child("fitted").as_bool(),
                      p.has("large") && p.child("large").as_bool()});
  }
  return points;
}

// Narayanan et al. 2021, eq. (3): FLOPs of one iteration with activation
// recomputation, 96 B s l h^2 (1 + s / 6h + V / 16 l h).
inline double megatron_hardware_flops(const WorkloadSpec& w) {
  const double B = static_cast<double>(w.global_batch), s = static_cast<double>(w.model.seq_len);
  const double l = static_cast<double>(w.model.layers), h = static_cast<double>(w.model.hidden);
  const double V = static_cast<double>(w.model.vocab);
  return 96.0 * B * s * l * h * h * (1.0 + s / (6.0 * h) + V / (16.0 * l * h));
}

inline double simulated_metric(const EndToEndPoint& point, const PlanRun& run) {
  if (point.metric == "step_s") return run.step_s();
  REQUIRE(point.metric == "hardware_tflops_per_gpu");
  const double gpus = static_cast<double>(run.scenario.trace.ranks.size());
  return megatron_hardware_flops(run.scenario.workload) / run.step_s() / gpus / 1e12;
}

// Replays the point, prints its row and checks it; returns |error|.
inline double check_reference_point(const EndToEndPoint& point) {
  const auto run = run_config(point.config);
  const double value = simulated_metric(point, run);
  const double error = value / point.measured - 1.0;
  std::printf("%-42s %-24s %10.3f %10.3f %+7.1f%%%s\n", point.id.c_str(), point.metric.c_str(), point.measured, value,
              100.0 * error, point.fitted ? " (fitted)" : "");
  INFO(point.id << ": measured " << point.measured << ", simulated " << value);
  CHECK(std::abs(error) <= point.tolerance);
  return std::abs(error);
}

}  // namespace simctl::testing
