#include "sim/scenario/fp8_layout_choice.hpp"

#include "sim/scenario/rank_gpus.hpp"

namespace simctl {

void choose_fp8_transposes(WorkloadSpec& spec, const System& system, const DeviceCatalogue& catalogue, int ranks) {
  if (!spec.fp8 || spec.fp8->gemm_dtype != DType::fp8 || spec.framework_fp8_transposes.empty()) return;
  const std::vector<const GpuSpec*> gpus = gpus_of_ranks(spec, system, catalogue, ranks);
  if (gpus.empty()) return;
  bool transposes = false;
  for (const GpuSpec* gpu : gpus) {
    const auto entry = spec.framework_fp8_transposes.find(gpu->architecture);
    transposes = transposes || entry == spec.framework_fp8_transposes.end() || entry->second;
  }
  spec.fp8->transposes = transposes;
}

}  // namespace simctl
