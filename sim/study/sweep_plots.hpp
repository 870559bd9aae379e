#pragma once
// The charts of a sweep (`simctl sweep --plot DIR`), drawn from its JSON
// output: step time or throughput against each axis, and Pareto fronts of
// throughput against cost and energy.
#include <filesystem>
#include <vector>

namespace simctl {

// Renders the charts of the sweep JSON `json_file` into `dir` and returns
// the PNG files written.
std::vector<std::filesystem::path> render_sweep_plots(const std::filesystem::path& json_file,
                                                      const std::filesystem::path& dir);

}  // namespace simctl
