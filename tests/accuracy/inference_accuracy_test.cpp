// Serving accuracy: every point of workloads/measured/inference_points.yaml
// (TensorRT-LLM's and NIM's published H100 figures, Intel's published Gaudi 3
// figures, and this project's own H100 measurement of prefill and decode in
// plain PyTorch) replayed by
// `task: inference`, its error printed as a docs/inference.md row. In- and
// out-of-sample points are summarised apart.
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdio>
#include <map>

#include "sim/config/config_overrides.hpp"
#include "sim/scenario/inference_run.hpp"

using namespace simctl;

namespace {

const std::string kRoot = SIMCTL_SOURCE_DIR;

struct Point {
  std::string id, config, metric, group;
  double measured = 0.0;
  bool in_sample = false;
  ConfigOverrides overrides;
};

std::vector<Point> load_points() {
  const std::string path = kRoot + "/workloads/measured/inference_points.yaml";
  const YAML::Node root = YAML::LoadFile(path);
  std::vector<Point> out;
  for (const YAML::Node& n : root["inference_points"]) {
    Point p;
    p.id = n["id"].as<std::string>();
    p.config = n["config"].as<std::string>();
    p.metric = n["metric"].as<std::string>();
    p.measured = n["measured"].as<double>();
    p.in_sample = n["sample"].as<std::string>() == "in";
    p.group = p.id.substr(0, p.id.find('-')) + " on " + n["gpu"].as<std::string>();
    const auto line = static_cast<int>(n["overrides"].Mark().line) + 1;
    for (const auto& kv : n["overrides"])
      p.overrides.push_back({kv.first.as<std::string>(), kv.second.as<std::string>(), SourceLocation{path, line, 1}});
    out.push_back(std::move(p));
  }
  return out;
}

double simulated(const Point& p) {
  ScenarioOptions options;
  options.overrides = p.overrides;
  const InferenceReport r = run_inference(load_scenario(kRoot + "/" + p.config, options));
  if (p.metric == "ttft_ms") return r.ttft_s * 1e3;
  if (p.metric == "tpot_ms") return r.tpot_s * 1e3;
  if (p.metric == "output_tokens_per_s_per_gpu") return r.output_tokens_per_s / r.gpus;
  FAIL("unknown metric " << p.metric << " at " << p.id);
  return 0.0;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : 0.5 * (v[n / 2 - 1] + v[n / 2]);
}

}  // namespace

TEST_CASE("published and measured serving figures: errors in and out of sample", "[accuracy][inference]") {
  const std::vector<Point> points = load_points();
  REQUIRE(points.size() >= 20);
  std::map<std::string, std::vector<double>> out_of_sample;  // |error| by source group
  std::vector<double> in_sample, all_out;
  std::printf("| point | metric | measured | simulated | error |\n| --- | --- | ---: | ---: | ---: |\n");
  for (const Point& p : points) {
    const double sim = simulated(p);
    const double error = sim / p.measured - 1.0;
    std::printf("| %s | %s | %.4g | %.4g | %+.1f %% |\n", p.id.c_str(), p.metric.c_str(), p.measured, sim,
                100.0 * error);
    (p.in_sample ? in_sample : out_of_sample[p.group]).push_back(std::abs(error));
    if (!p.in_sample) all_out.push_back(std::abs(error));
  }
  for (const auto& [group, errors] : out_of_sample) {
    std::printf("out of sample, %s: %zu points, median |error| %.1f %%, max %.1f %%\n", group.c_str(), errors.size(),
                100.0 * median(errors), 100.0 * *std::max_element(errors.begin(), errors.end()));
  }
  std::printf("in sample: %zu points\n", in_sample.size());
  REQUIRE(!all_out.empty());
  std::printf("out of sample, all: %zu points, median |error| %.1f %%\n", all_out.size(), 100.0 * median(all_out));
  // Where each source stood when docs/inference.md's table was first
  // written (nim 15.5 %, trtllm 14.7 %, torch 20.9 % on the H100 and 30.2 %
  // on the H200), with a few points of slack: a change that makes serving
  // worse overall fails here. On 2026-11-29 they stood at 17.6, 19.9, 23.2
  // and 30.9 % (docs/inference.md says why).
  CHECK(median(out_of_sample["nim on H100"]) <= 0.20);
  CHECK(median(out_of_sample["trtllm on H100"]) <= 0.20);
  CHECK(median(out_of_sample["torch on H100"]) <= 0.25);
  CHECK(median(out_of_sample["torch on H200"]) <= 0.35);
  // Gaudi 3 (6.5 % when its points were added; its catalogue entry is
  // uncalibrated, so this bounds the datasheet figures and the carried-over
  // efficiencies together).
  CHECK(median(out_of_sample["habana on Gaudi 3"]) <= 0.10);
}
