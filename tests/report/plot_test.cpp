// `simctl run CONFIG --plot DIR` draws its four charts at a readable size
// (plots/check_png.py reads each PNG's header).
#include <catch2/catch.hpp>

#include "tests/report/report_outputs.hpp"

using namespace simctl::testing;

namespace {

const char* const kCharts[] = {"breakdown.png", "timeline.png", "link_heatmap.png", "memory.png"};

int check_png(const std::filesystem::path& dir, const std::string& size) {
  std::string command = "/usr/bin/python3 " + source_path("plots/check_png.py");
  for (const char* chart : kCharts) command += " " + (dir / chart).string();
  command += " " + size + " >/dev/null 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

void check_plots(const std::string& name, const std::string& config, const std::string& options = "") {
  const TempDir temp(name);
  const std::filesystem::path& dir = temp.path();
  const auto result = run_simctl("run " + source_path(config) + " --plot " + dir.string() + options);
  INFO(result.err);
  REQUIRE(result.exit_code == 0);
  for (const char* chart : kCharts) {
    INFO(chart);
    CHECK_THAT(result.out, Catch::Contains("wrote " + (dir / chart).string()));
    CHECK(std::filesystem::is_regular_file(dir / chart));
  }
  CHECK(check_png(dir, "--min-width 600 --min-height 400") == 0);
  // The checker can fail: no chart is 100000 px wide.
  CHECK(check_png(dir, "--min-width 100000 --min-height 400") == 1);
}

}  // namespace

TEST_CASE("run --plot draws the DGX H100 example's charts at 600x400 px or more", "[report][plot]") {
  check_plots("plot_dgx", "configs/dgx_h100_x8.yaml");
}

// From gzipped tables whose ops.csv keeps two pipeline stages: the timeline
// draws ranks that are in it.
TEST_CASE("run --plot draws the 32-rank pipeline's charts at 600x400 px or more", "[report][plot]") {
  const TempDir csv("plot_pp_csv");
  check_plots("plot_pp", "tests/report/configs/pp_4node.yaml",
              " --csv " + csv.path().string() + " --csv-gz --trace-ranks 8-23");
  CHECK(std::filesystem::is_regular_file(csv.path() / "ops.csv.gz"));
}
