#include "sim/scenario/kernel_factor_choice.hpp"

#include <algorithm>

#include "sim/scenario/rank_gpus.hpp"

namespace simctl {

void choose_kernel_time_factor(WorkloadSpec& spec, const System& system, const DeviceCatalogue& catalogue, int ranks) {
  if (spec.framework_kernel_time_factor.empty()) return;
  const std::vector<const GpuSpec*> gpus = gpus_of_ranks(spec, system, catalogue, ranks);
  if (gpus.empty()) return;
  double factor = 0.0;
  for (const GpuSpec* gpu : gpus) {
    const auto entry = spec.framework_kernel_time_factor.find(gpu->architecture);
    factor =
        std::max(factor, entry == spec.framework_kernel_time_factor.end() ? spec.kernel_time_factor : entry->second);
  }
  spec.kernel_time_factor = factor;
}

}  // namespace simctl
