#pragma once
// A kernel a profiler timed, replayed on a GPU: on the GPU it was timed on
// it takes its measurement; on another, the measurement times the compute
// model's ratio between the two GPUs, so what the model cannot see (the
// kernel's real efficiency) carries over and what it can (peaks, bandwidth)
// changes. docs/trace-format.md, "Measured kernels".
#include "models/devices/compute_model.hpp"

namespace simctl {

// `work.measured_seconds` must be > 0. With FLOPs or bytes the ratio is the
// compute model's estimates of `work` on the two GPUs; without (a kernel a
// profile names but does not size) it is by class: gemm and attention by
// the ratio of the GPUs' dense peaks in the kernel's dtype, every other
// class by the ratio of their memory bandwidths.
ComputeEstimate measured_kernel_estimate(const ComputeWork& work, const GpuSpec& measured_on, const GpuSpec& target);

}  // namespace simctl
