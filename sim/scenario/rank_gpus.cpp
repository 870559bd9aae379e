#include "sim/scenario/rank_gpus.hpp"

namespace simctl {

std::vector<const GpuSpec*> gpus_of_ranks(const WorkloadSpec& spec, const System& system,
                                          const DeviceCatalogue& catalogue, int ranks) {
  std::vector<const GpuSpec*> out;
  const auto& gpus = system.gpus();
  for (int r = 0; r < ranks; ++r) {
    const std::size_t index =
        spec.parallel.gpus.empty() ? static_cast<std::size_t>(r) : static_cast<std::size_t>(spec.parallel.gpus[r]);
    if (index >= gpus.size()) continue;
    const GpuSpec* gpu = catalogue.find_gpu(system.part(gpus[index]).model);
    if (gpu == nullptr) continue;
    bool seen = false;
    for (const GpuSpec* g : out) seen = seen || g == gpu;
    if (!seen) out.push_back(gpu);
  }
  return out;
}

}  // namespace simctl
