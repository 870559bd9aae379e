#include "models/devices/measured_kernel.hpp"

#include <algorithm>

namespace simctl {
namespace {

bool uses_tensor_cores(ComputeKind kind) { return kind == ComputeKind::gemm || kind == ComputeKind::attention; }

// Target time over source time for a kernel the trace does not size.
double class_ratio(const ComputeWork& work, const GpuSpec& measured_on, const GpuSpec& target) {
  if (uses_tensor_cores(work.kind) && measured_on.supports(work.dtype) && target.supports(work.dtype)) {
    return measured_on.peak(work.dtype).flops_per_s / target.peak(work.dtype).flops_per_s;
  }
  return measured_on.memory_bandwidth.bytes_per_s / target.memory_bandwidth.bytes_per_s;
}

}  // namespace

ComputeEstimate measured_kernel_estimate(const ComputeWork& work, const GpuSpec& measured_on, const GpuSpec& target) {
  const TimePs measured = seconds_to_ps(work.measured_seconds);
  const bool sized = work.flops > 0.0 || work.memory_bytes > 0.0;
  const KernelBound unsized_bound = uses_tensor_cores(work.kind) ? KernelBound::compute : KernelBound::memory;
  ComputeEstimate out;
  if (measured_on.id == target.id) {
    out.time = measured;
    out.bound = sized ? estimate_compute(target, work).bound : unsized_bound;
  } else if (!sized) {
    out.time = seconds_to_ps(work.measured_seconds * class_ratio(work, measured_on, target));
    out.bound = unsized_bound;
  } else {
    const ComputeEstimate there = estimate_compute(measured_on, work), here = estimate_compute(target, work);
    out.time = seconds_to_ps(work.measured_seconds * static_cast<double>(here.time) /
                             static_cast<double>(std::max<TimePs>(there.time, 1)));
    out.bound = here.bound;
  }
  out.memory_bound = out.bound == KernelBound::memory;
  return out;
}

}  // namespace simctl
