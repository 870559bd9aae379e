#include "sim/scenario/attention_choice.hpp"

#include <string>
#include <vector>

#include "sim/scenario/rank_gpus.hpp"

namespace simctl {
namespace {

std::optional<FusedAttention> fused_of(AttentionKernel kernel) {
  switch (kernel) {
    case AttentionKernel::flash2: return FusedAttention::flash2;
    case AttentionKernel::flash3: return FusedAttention::flash3;
    case AttentionKernel::cudnn: return FusedAttention::cudnn;
    case AttentionKernel::unfused: return std::nullopt;
  }
  return std::nullopt;
}

// "flash2, cudnn and unfused": what this GPU could run instead, in `dtype`.
std::string valid_here(const GpuSpec& gpu, DType dtype) {
  std::string out;
  for (FusedAttention k : kAllFusedAttention) {
    if (gpu.compute.attention.prices(k, dtype)) out += std::string(to_string(k)) + ", ";
  }
  return out + "unfused";
}

// The dtype the run's fused attention kernels price in: fp8 under
// Transformer Engine's fp8 dot-product attention, else the pass's.
DType attention_dtype(const WorkloadSpec& spec) {
  return spec.fp8 && spec.fp8->dot_product_attention ? DType::fp8 : spec.precision;
}

// The framework's default on this GPU where the GPU prices it in the run's
// precision, else flash2 where that is priced in it, else unfused: no fused
// kernel takes fp32 operands (PyTorch's SDPA then runs its math path, and
// Transformer Engine its unfused attention).
AttentionKernel framework_default(const WorkloadSpec& spec, const GpuSpec& gpu) {
  const auto entry = spec.framework_attention.find(gpu.architecture);
  const AttentionKernel wanted = entry == spec.framework_attention.end() ? AttentionKernel::flash2 : entry->second;
  const auto fused = fused_of(wanted);
  const AttentionEfficiencyParams& attention = gpu.compute.attention;
  if (!fused || attention.prices(*fused, spec.precision)) return wanted;
  return attention.prices(FusedAttention::flash2, spec.precision) ? AttentionKernel::flash2 : AttentionKernel::unfused;
}

// Transformer Engine's FP8 DotProductAttention exists only as cuDNN's fused
// kernel; each GPU must hold a fitted fp8 curve for it.
void check_fp8_attention(const ConfigNode& workload_node, const WorkloadSpec& spec,
                         const std::vector<const GpuSpec*>& gpus) {
  if (!spec.fp8 || !spec.fp8->dot_product_attention) return;
  const ConfigNode at = workload_node.child("fp8").child("dot_product_attention");
  if (spec.attention != AttentionKernel::cudnn) {
    at.fail("fp8 dot-product attention is Transformer Engine's cuDNN FusedAttention, but the attention kernel is '" +
            std::string(config_word(spec.attention)) +
            "'; set workload.attention: cudnn, or dot_product_attention: false");
  }
  for (const GpuSpec* gpu : gpus) {
    if (gpu->compute.attention.fit_for(FusedAttention::cudnn, DType::fp8)) continue;
    at.fail("the GPU catalogue has no fitted fp8 cuDNN attention on " + gpu->name + " (" + gpu->id + ", " +
            gpu->architecture + "); set dot_product_attention: false (bf16 attention)");
  }
}

}  // namespace

void choose_attention_kernel(const ConfigNode& workload_node, WorkloadSpec& spec, const System& system,
                             const DeviceCatalogue& catalogue, int ranks) {
  const std::vector<const GpuSpec*> gpus = gpus_of_ranks(spec, system, catalogue, ranks);
  if (gpus.empty()) return;
  if (!spec.attention_given) {
    // A mixed system takes the first rank's GPU's default; the check below
    // does not apply to a default, which every GPU can price or falls back from.
    spec.attention = framework_default(spec, *gpus.front());
    for (const GpuSpec* gpu : gpus) {
      if (framework_default(spec, *gpu) != spec.attention) spec.attention = AttentionKernel::flash2;
    }
    for (const GpuSpec* gpu : gpus) {
      if (spec.attention == AttentionKernel::flash2 &&
          !gpu->compute.attention.prices(FusedAttention::flash2, spec.precision))
        spec.attention = AttentionKernel::unfused;
    }
    return check_fp8_attention(workload_node, spec, gpus);
  }
  const auto fused = fused_of(spec.attention);
  if (!fused) return check_fp8_attention(workload_node, spec, gpus);
  for (const GpuSpec* gpu : gpus) {
    if (gpu->compute.attention.prices(*fused, attention_dtype(spec))) continue;
    const DType dtype = attention_dtype(spec);
    const std::string why =
        gpu->compute.attention.runs(*fused)
            ? "the GPU catalogue prices it there for other operands than this run's " + std::string(to_string(dtype))
        : *fused == FusedAttention::flash3 ? "FlashAttention-3 runs on Hopper GPUs only (it is built on wgmma and TMA)"
                                           : "the GPU catalogue has no fitted efficiency for it there";
    workload_node.child("attention")
        .fail("'" + std::string(config_word(spec.attention)) + "' cannot run on " + gpu->name + " (" + gpu->id + ", " +
              gpu->architecture + "): " + why + "; valid on this GPU in " + std::string(to_string(dtype)) + ": " +
              valid_here(*gpu, dtype));
  }
  check_fp8_attention(workload_node, spec, gpus);
}

}  // namespace simctl
