#pragma once
// The charts of `simctl sweep --plot DIR`: the study's step time and
// throughput against each axis (plots/sweep_axes.py) and the Pareto fronts of
// throughput against cost and against energy per million tokens
// (plots/sweep_pareto.py), drawn from the sweep's --json rows.
#include <filesystem>
#include <vector>

namespace simctl {

// Writes sweep_axes.png, sweep_pareto_cost.png and sweep_pareto_energy.png
// into `dir` (created if absent) and returns their paths in that order.
// Throws std::runtime_error naming the script and the fix when python3 or
// matplotlib is missing or a script fails.
std::vector<std::filesystem::path> render_sweep_plots(const std::filesystem::path& json_file,
                                                      const std::filesystem::path& dir);

}  // namespace simctl
