#include "sim/report/plots.hpp"

#include "sim/report/plot_script.hpp"

namespace simctl {

std::vector<std::filesystem::path> render_plots(const PlotRequest& request) {
  require_matplotlib();
  std::filesystem::create_directories(request.out_dir);
  const std::string json = "--json " + shell_quoted(request.json_file.string());
  std::string ranks;
  for (std::uint32_t r : request.timeline_ranks) ranks += (ranks.empty() ? "" : ",") + std::to_string(r);
  std::vector<std::filesystem::path> written;
  written.push_back(run_plot_script("breakdown.py", json, request.out_dir / "breakdown.png"));
  written.push_back(run_plot_script("timeline.py",
                                    json + " --ops " +
                                        shell_quoted((request.csv_dir / ("ops" + request.csv_extension)).string()) +
                                        " --ranks " + ranks,
                                    request.out_dir / "timeline.png"));
  written.push_back(
      run_plot_script("link_heatmap.py",
                      json + " --links " + shell_quoted((request.csv_dir / ("links" + request.csv_extension)).string()),
                      request.out_dir / "link_heatmap.png"));
  if (request.memory) written.push_back(run_plot_script("memory.py", json, request.out_dir / "memory.png"));
  return written;
}

std::vector<std::uint32_t> spread_ranks(std::uint32_t ranks, std::uint32_t count) {
  std::vector<std::uint32_t> out;
  if (ranks == 0 || count == 0) return out;
  if (ranks <= count) {
    for (std::uint32_t r = 0; r < ranks; ++r) out.push_back(r);
    return out;
  }
  for (std::uint32_t i = 0; i < count; ++i) {
    out.push_back(count == 1 ? 0 : static_cast<std::uint32_t>(std::uint64_t{i} * (ranks - 1) / (count - 1)));
  }
  return out;
}

}  // namespace simctl
