#pragma once
// Numeric formats a device computes in. Shared by the device catalogue (peak
// rates per format) and workloads (the format each op runs in).
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>

namespace simctl {

// fp4 is a 4-bit block-scaled format (NVFP4 on Blackwell, MXFP4 on CDNA4):
// one tensor-core rate, priced as one format.
enum class DType : std::uint8_t { fp32, tf32, bf16, fp16, fp8, fp4 };

inline constexpr DType kAllDTypes[] = {DType::fp32, DType::tf32, DType::bf16, DType::fp16, DType::fp8, DType::fp4};

constexpr std::string_view to_string(DType d) {
  switch (d) {
    case DType::fp32: return "fp32";
    case DType::tf32: return "tf32";
    case DType::bf16: return "bf16";
    case DType::fp16: return "fp16";
    case DType::fp8: return "fp8";
    case DType::fp4: return "fp4";
  }
  return "?";
}

constexpr std::optional<DType> dtype_from_string(std::string_view s) {
  for (DType d : kAllDTypes) {
    if (to_string(d) == s) return d;
  }
  return std::nullopt;
}

// "fp32, tf32, bf16, fp16, fp8 or fp4": every format, for error messages.
inline std::string dtype_choices() {
  std::string out;
  for (std::size_t i = 0; i < std::size(kAllDTypes); ++i) {
    if (i > 0) out += i + 1 == std::size(kAllDTypes) ? " or " : ", ";
    out += to_string(kAllDTypes[i]);
  }
  return out;
}

// Whether weights in this compute dtype are their own fp32 master copy (fp32,
// and tf32, which stores fp32 and rounds only inside tensor-core GEMMs).
constexpr bool stored_as_fp32(DType d) { return d == DType::fp32 || d == DType::tf32; }

// Storage size of one element. tf32 is stored as fp32; fp4 as its 4-bit
// values, its block scales (one byte per 16 or 32 elements) not counted.
constexpr double bytes_per_element(DType d) {
  switch (d) {
    case DType::fp32:
    case DType::tf32: return 4;
    case DType::bf16:
    case DType::fp16: return 2;
    case DType::fp8: return 1;
    case DType::fp4: return 0.5;
  }
  return 4;
}

}  // namespace simctl
