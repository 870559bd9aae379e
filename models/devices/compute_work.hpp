#pragma once
// What a compute op asks of a device: the counts the roofline needs, plus the
// shape where efficiency depends on it. Workloads produce these; the compute
// model prices them on a GpuSpec.
#include <cstdint>
#include <string_view>

#include "models/devices/attention_kernel.hpp"
#include "sim/core/dtype.hpp"

namespace simctl {

enum class ComputeKind : std::uint8_t {
  gemm,         // matrix product; m, n, k (and batch) are set
  attention,    // fused attention (FlashAttention-style); flops and bytes set
  elementwise,  // add, GeLU, dropout, residual...
  norm,         // LayerNorm / RMSNorm
  softmax,
  embedding,  // gather from a table
  optimizer,  // fused optimizer update (Adam...)
  other,
};

constexpr std::string_view to_string(ComputeKind k) {
  switch (k) {
    case ComputeKind::gemm: return "gemm";
    case ComputeKind::attention: return "attention";
    case ComputeKind::elementwise: return "elementwise";
    case ComputeKind::norm: return "norm";
    case ComputeKind::softmax: return "softmax";
    case ComputeKind::embedding: return "embedding";
    case ComputeKind::optimizer: return "optimizer";
    case ComputeKind::other: return "other";
  }
  return "?";
}

struct ComputeWork {
  ComputeKind kind = ComputeKind::other;
  DType dtype = DType::bf16;
  double flops = 0.0;         // floating-point operations
  double memory_bytes = 0.0;  // bytes read + written in device memory
  // GEMM shape: C[m,n] = A[m,k] * B[k,n], repeated `batch` times.
  std::int64_t m = 0, n = 0, k = 0, batch = 1;
  // Attention only: which fused kernel runs it, its pass and masking (each has
  // its own fitted efficiency where the GPU's catalogue entry gives one).
  FusedAttention attention_kernel = FusedAttention::flash2;
  bool backward = false;
  bool causal = false;
  // Streaming multiprocessors that communication kernels running beside this
  // op hold (Transformer Engine's userbuffers overlap launches its GEMMs on
  // the SMs its communication leaves free): the op runs on the rest
  // (sm_share.hpp).
  int comm_sms = 0;
  // A kernel of a training step, run back to back with the others for
  // seconds: tensor-core kinds (gemm, attention) then run at the clock the
  // GPU holds under its power cap, not the boost clock of a short burst
  // (GpuComputeParams::sustained_tensor_slowdown). Kernels timed alone, as
  // the kernel fits and their tests time them, leave it false.
  bool sustained = false;
  // A kernel a profiler timed (simctl import kineto): its measured time on
  // the trace's `measured_on` GPU model, which it keeps there; on another
  // GPU the compute model's ratio rescales it (measured_kernel.hpp). 0: not
  // measured, priced by the model alone.
  double measured_seconds = 0.0;
  // A field added here that estimate_compute reads must also join the key
  // compute_bound.cpp prices distinct kernels by.
};

}  // namespace simctl
