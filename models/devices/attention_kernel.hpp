#pragma once
// The fused attention kernels the compute model prices apart: each has its own
// fitted efficiency per GPU (compute_model.attention.kernels in the GPU
// catalogue), forward and backward separately.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace simctl {

enum class FusedAttention : std::uint8_t {
  flash2,  // FlashAttention-2 (Dao 2023), also PyTorch SDPA's flash backend
  flash3,  // FlashAttention-3 (Shah et al. 2024): Hopper only (wgmma, TMA)
  cudnn,   // cuDNN fused attention (Transformer Engine's FusedAttention, SDPA's cudnn backend)
};

inline constexpr std::array<FusedAttention, 3> kAllFusedAttention = {FusedAttention::flash2, FusedAttention::flash3,
                                                                     FusedAttention::cudnn};

constexpr std::string_view to_string(FusedAttention k) {
  switch (k) {
    case FusedAttention::flash2: return "flash2";
    case FusedAttention::flash3: return "flash3";
    case FusedAttention::cudnn: return "cudnn";
  }
  return "?";
}

inline std::optional<FusedAttention> fused_attention_named(std::string_view name) {
  for (FusedAttention k : kAllFusedAttention) {
    if (to_string(k) == name) return k;
  }
  return std::nullopt;
}

}  // namespace simctl
