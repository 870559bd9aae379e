#include "sim/study/sweep_plots.hpp"

#include <string>

#include "sim/report/plot_script.hpp"

namespace simctl {

std::vector<std::filesystem::path> render_sweep_plots(const std::filesystem::path& json_file,
                                                      const std::filesystem::path& dir) {
  require_matplotlib();
  std::filesystem::create_directories(dir);
  const std::string json = "--json " + shell_quoted(json_file.string());
  return {run_plot_script("sweep_axes.py", json, dir / "sweep_axes.png"),
          run_plot_script("sweep_pareto.py", json + " --against cost", dir / "sweep_pareto_cost.png"),
          run_plot_script("sweep_pareto.py", json + " --against energy", dir / "sweep_pareto_energy.png")};
}

}  // namespace simctl
