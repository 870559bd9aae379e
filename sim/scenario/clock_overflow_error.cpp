#include "sim/scenario/clock_overflow_error.hpp"

#include <cstdio>

namespace simctl {
namespace {

std::string slowest_link_words(const System& system) {
  if (system.num_links() == 0) return "";
  LinkId slowest = 0;
  for (LinkId link = 1; link < system.num_links(); ++link) {
    if (system.link_spec(link).effective().bytes_per_s < system.link_spec(slowest).effective().bytes_per_s)
      slowest = link;
  }
  char text[256];
  std::snprintf(text, sizeof text, "; its slowest link is %s at %.3g B/s", system.link_name(slowest).c_str(),
                system.link_spec(slowest).effective().bytes_per_s);
  return text;
}

std::string slowest_gpu_words(const System& system) {
  const Part* slowest = nullptr;
  for (EndpointId gpu : system.gpus()) {
    if (!slowest || system.part(gpu).compute_speed < slowest->compute_speed) slowest = &system.part(gpu);
  }
  if (slowest == nullptr || slowest->compute_speed >= 1.0) return "";
  char text[200];
  std::snprintf(text, sizeof text, ", its slowest GPU %s at compute_speed %g", slowest->name.c_str(),
                slowest->compute_speed);
  return text;
}

}  // namespace

ConfigError clock_overflow_error(const Scenario& scenario, const std::string& config_path) {
  char range[64];
  std::snprintf(range, sizeof range, "%.3g s", kClockRangeSeconds);
  return ConfigError(SourceLocation{config_path, 0, 0}, "system",
                     "the simulated step runs past the clock's range of " + std::string(range) +
                         " (int64 picoseconds, about 106 days): a rate is too low for the work it carries" +
                         slowest_link_words(scenario.system) + slowest_gpu_words(scenario.system) +
                         "; raise the bandwidth or speed that makes the step so long");
}

}  // namespace simctl
