// The sweep's charts (plots/sweep_axes.py, plots/sweep_pareto.py) drawn from
// a hand-written `simctl sweep --json` file, and the Pareto front they draw
// (plots/pareto.py, which needs no matplotlib).
#include "sim/study/sweep_plots.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <string>

using namespace simctl;

namespace {

const std::string kSource = SIMCTL_SOURCE_DIR;
const std::string kPython = "/usr/bin/python3";

int shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

bool have_matplotlib() { return shell(kPython + " -c 'import matplotlib' >/dev/null 2>&1") == 0; }

// What a command prints on stdout, without the final newline.
std::string output_of(const std::string& command) {
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    char buffer[256];
    while (std::fgets(buffer, sizeof buffer, pipe)) out += buffer;
    ::pclose(pipe);
  }
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

std::string read_bytes(const std::filesystem::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A fresh folder per test process and name, removed at the end of the test.
class TempDir {
 public:
  explicit TempDir(const std::string& name)
      : path_(std::filesystem::temp_directory_path() /
              ("simctl_sweep_plots_" + std::to_string(::getpid()) + "_" + name)) {
    std::filesystem::remove_all(path_);
    std::filesystem::create_directories(path_);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  ~TempDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  const std::filesystem::path& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

const std::filesystem::path kSweep = std::filesystem::path(kSource) / "tests/study/data/sweep_small.json";

}  // namespace

TEST_CASE("sweep --plot draws the axes chart and both Pareto charts, byte for byte the same twice", "[study][plot]") {
  if (!have_matplotlib()) {
    WARN("skipped: /usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)");
    return;
  }
  const TempDir temp("twice");
  const auto first = render_sweep_plots(kSweep, temp.path() / "a");
  REQUIRE(first.size() == 3);
  CHECK(first[0] == temp.path() / "a" / "sweep_axes.png");
  CHECK(first[1] == temp.path() / "a" / "sweep_pareto_cost.png");
  CHECK(first[2] == temp.path() / "a" / "sweep_pareto_energy.png");
  std::string files;
  for (const auto& png : first) {
    INFO(png);
    REQUIRE(std::filesystem::is_regular_file(png));
    CHECK(std::filesystem::file_size(png) > 10000);  // a drawn chart, not an empty canvas
    files += " " + png.string();
  }
  CHECK(shell(kPython + " " + kSource + "/plots/check_png.py" + files +
              " --min-width 600 --min-height 400 >/dev/null") == 0);

  const auto second = render_sweep_plots(kSweep, temp.path() / "b");
  REQUIRE(second.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    INFO(second[i]);
    CHECK(read_bytes(first[i]) == read_bytes(second[i]));
  }
}

TEST_CASE("sweep charts of a model without tokens and without prices are still drawn", "[study][plot]") {
  if (!have_matplotlib()) {
    WARN("skipped: /usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)");
    return;
  }
  const TempDir temp("unpriced");
  const auto json = temp.path() / "sweep.json";
  std::ofstream(json) << R"({"study": "ResNet-50 batch", "objective": "throughput", "base": "x.yaml",
 "axes": [{"field": "workload.micro_batch", "values": ["64", "128"]}],
 "points": [
  {"point": 0, "axes": {"workload.micro_batch": "64"}, "status": "ok", "reason": "", "gpus": 1, "nodes": 1,
   "step_time_ms": 100.0, "samples_per_s": 640.0, "tokens_per_s": null, "mfu_percent": 40.0, "cost_per_step": null,
   "cost_per_million_tokens": null, "currency": null, "energy_per_step_kj": 0.07, "energy_per_million_tokens_kwh": null,
   "peak_memory_gib": 20.0, "min_headroom_gib": 4.0, "bottleneck": "compute", "breakdown_ms": {"compute_bound": 100.0}},
  {"point": 1, "axes": {"workload.micro_batch": "128"}, "status": "out_of_memory", "reason": "too big", "gpus": 1,
   "nodes": 1, "step_time_ms": null, "samples_per_s": null, "tokens_per_s": null, "mfu_percent": null,
   "cost_per_step": null, "cost_per_million_tokens": null, "currency": null, "energy_per_step_kj": null,
   "energy_per_million_tokens_kwh": null, "peak_memory_gib": 30.0, "min_headroom_gib": -6.0, "bottleneck": null,
   "breakdown_ms": null}]})";
  const auto written = render_sweep_plots(json, temp.path() / "out");
  REQUIRE(written.size() == 3);
  for (const auto& png : written) {
    INFO(png);
    CHECK(std::filesystem::file_size(png) > 10000);
  }
}

TEST_CASE("a file that is not a sweep report fails naming the script", "[study][plot]") {
  if (!have_matplotlib()) {
    WARN("skipped: /usr/bin/python3 has no matplotlib (Debian package python3-matplotlib)");
    return;
  }
  const TempDir temp("bad");
  const auto json = temp.path() / "run.json";
  std::ofstream(json) << R"({"step_time_ms": 1.0})";  // a run report, not a sweep's
  CHECK_THROWS_WITH(render_sweep_plots(json, temp.path() / "out"), Catch::Contains("plots/sweep_axes.py failed"));
}

TEST_CASE("the Pareto front keeps the points no other beats on both cost and throughput", "[study][plot]") {
  const std::string pareto = kPython + " " + kSource + "/plots/pareto.py";
  // (cost, throughput): point 1 costs more than point 0 and does less, so it
  // is dominated; 3 is cheapest, 2 fastest; 4 equals 0 and is kept with it.
  CHECK(output_of(pareto + " 1,100 2,90 3,200 0.5,50 1,100") == "3 0 4 2");
  // Cheaper for the same throughput dominates too.
  CHECK(output_of(pareto + " 2,100 1,100") == "1");
  // The hand-written sweep's points as sweep_pareto.py reads them (cost per
  // million tokens, tokens/s of the ok points 0, 1, 2, 4): point 4 beats 0
  // and 1 on both, so the front is 4 then 2.
  CHECK(output_of(pareto + " 0.1014,65536 0.1065,124830.5 0.1166,227951.3 0.1011,131400.5") == "3 2");
  CHECK(shell(pareto + " 1,x 2>/dev/null") == 1);
}
