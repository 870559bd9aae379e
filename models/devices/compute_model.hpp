#pragma once
// Time of one compute op on one GPU: a roofline with shape-dependent
// efficiency, plus the kernel launch overhead.
//
//   compute_time = flops / (rate × efficiency)
//   memory_time  = memory_bytes / (memory_bandwidth × memory_efficiency)
//   time         = max(compute_time, memory_time) + launch_overhead
//
// The rate depends on which unit runs the op: gemm and attention use the
// tensor-core peak for the op's dtype with gemm_efficiency / attention_efficiency;
// every other kind (element-wise, norm, softmax, embedding, optimizer, other)
// runs on the vector (CUDA-core) units at the fp32 rate × vector_efficiency,
// because those kernels do not use tensor cores whatever their storage dtype.
// A GEMM with m == 1 or n == 1 is a matrix-vector product and also runs on the
// vector units (BLAS dispatches it to GEMV).
// Nothing here marks a kind as memory-bound: that follows from its bytes and
// FLOPs against the two rates.
//
// What bounds a kernel: launch when the launch overhead exceeds both the
// compute and the memory time (the kernel is mostly its launch floor, and
// more work per kernel would come nearly free); otherwise memory when the
// memory time exceeds the compute time, else compute.
#include "models/devices/compute_work.hpp"
#include "models/devices/device_specs.hpp"

namespace simctl {

enum class KernelBound : std::uint8_t { compute, memory, launch };

constexpr const char* to_string(KernelBound b) {
  switch (b) {
    case KernelBound::compute: return "compute";
    case KernelBound::memory: return "memory";
    case KernelBound::launch: return "launch";
  }
  return "?";
}

struct ComputeEstimate {
  TimePs time = 0;                           // including launch overhead
  bool memory_bound = false;                 // memory_time > compute_time (the roofline's side)
  KernelBound bound = KernelBound::compute;  // launch, else the roofline's side (see above)
  double achieved_flops_per_s = 0.0;         // flops / time
  double compute_time_s = 0.0;               // without launch overhead
  double memory_time_s = 0.0;                // without launch overhead
};

// Throws std::invalid_argument when the op's dtype is not supported by the GPU
// for tensor-core kinds (e.g. fp8 GEMM on an A100), or when flops or bytes are
// negative.
ComputeEstimate estimate_compute(const GpuSpec& gpu, const ComputeWork& work);

// The rate (FLOP/s) an op of this kind and shape sustains, before the memory
// roofline: peak × efficiency.
double sustained_compute_rate(const GpuSpec& gpu, const ComputeWork& work);

// Sustained memory bandwidth in bytes/s: peak × memory_efficiency.
double sustained_memory_bandwidth(const GpuSpec& gpu);

}  // namespace simctl
