// Placeholder until the charts land (issue #12): the charts helper replaces this file.
#include "sim/study/sweep_plots.hpp"

#include <stdexcept>

namespace simctl {

std::vector<std::filesystem::path> render_sweep_plots(const std::filesystem::path&, const std::filesystem::path&) {
  throw std::runtime_error("charts not built yet");
}

}  // namespace simctl
