// A sweep's speed: points simulated per second, on one thread and on two,
// for a small study (16 points of GPT 22B on one DGX A100 by default).
//
//   bench_sweep [STUDY.yaml]
#include <chrono>
#include <cstdio>
#include <string>

#include "bench/process_stats.hpp"
#include "sim/config/data_root.hpp"
#include "sim/study/study_points.hpp"
#include "sim/study/sweep_rows.hpp"

using namespace simctl;

int main(int argc, char** argv) {
  const std::string path = argc > 1 ? argv[1] : data_root() + "/bench/studies/sweep_22b_16_points.yaml";
  const Study study = load_study(path);
  const std::vector<std::uint64_t> points = shard_points(point_count(study), 1, 1);
  std::printf("study             %s\n", study.title.c_str());
  std::printf("points            %zu\n", points.size());
  for (int jobs : {1, 2}) {
    const auto t0 = std::chrono::steady_clock::now();
    const std::vector<PointRow> rows = run_points(study, points, jobs);
    const double wall_s = bench::seconds_since(t0);
    std::size_t ran = 0;
    for (const PointRow& r : rows) ran += r.outcome.status == PointStatus::ok;
    std::printf("--jobs %d          %.2f s, %.1f points/s (%zu ran)\n", jobs, wall_s,
                static_cast<double>(points.size()) / wall_s, ran);
  }
  std::printf("peak RSS          %.0f MB\n", bench::peak_rss_mb());
  return 0;
}
