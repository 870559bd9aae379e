#include "models/devices/compute_model.hpp"

#include <algorithm>
#include <stdexcept>

#include "models/devices/gemm_efficiency.hpp"
#include "models/devices/sm_share.hpp"

namespace simctl {

namespace {

// A product with a single row or column is a matrix-vector product; BLAS
// libraries run it as GEMV on the vector units rather than as tensor-core tiles.
bool is_matrix_vector(const ComputeWork& work) {
  return work.kind == ComputeKind::gemm && (work.m == 1 || work.n == 1);
}

double vector_rate(const GpuSpec& gpu) { return gpu.peak(DType::fp32).flops_per_s * gpu.compute.vector_efficiency; }

}  // namespace

double sustained_compute_rate(const GpuSpec& gpu, const ComputeWork& work) {
  if (is_matrix_vector(work)) return vector_rate(gpu);
  switch (work.kind) {
    case ComputeKind::gemm:
      return gpu.peak(work.dtype).flops_per_s * gemm_efficiency(gpu, work.dtype, work.m, work.n, work.k, work.batch);
    case ComputeKind::attention:
      // Attention shape convention: m = query length, n = key/value length,
      // k = head dim, batch = batch × heads.
      return gpu.peak(work.dtype).flops_per_s * attention_efficiency(gpu, work);
    default: return vector_rate(gpu);
  }
}

double sustained_memory_bandwidth(const GpuSpec& gpu) {
  return gpu.memory_bandwidth.bytes_per_s * gpu.compute.memory_efficiency;
}

ComputeEstimate estimate_compute(const GpuSpec& gpu, const ComputeWork& work) {
  if (work.flops < 0.0 || work.memory_bytes < 0.0)
    throw std::invalid_argument("compute work has negative flops or memory bytes");
  if (work.comm_sms != 0) {
    // Priced on the SMs the overlapped communication leaves (sm_share.hpp).
    ComputeWork alone = work;
    alone.comm_sms = 0;
    return estimate_compute(with_sms_taken(gpu, work.comm_sms), alone);
  }
  ComputeEstimate estimate;
  estimate.compute_time_s = work.flops > 0.0 ? work.flops / sustained_compute_rate(gpu, work) : 0.0;
  if (work.sustained && (work.kind == ComputeKind::gemm || work.kind == ComputeKind::attention)) {
    estimate.compute_time_s *= gpu.compute.sustained_tensor_slowdown;
  }
  estimate.memory_time_s = work.memory_bytes / sustained_memory_bandwidth(gpu);
  estimate.memory_bound = estimate.memory_time_s > estimate.compute_time_s;
  const TimePs roofline = seconds_to_ps(std::max(estimate.compute_time_s, estimate.memory_time_s));
  estimate.time = roofline + gpu.launch_overhead;
  if (gpu.launch_overhead > roofline) {
    estimate.bound = KernelBound::launch;
  } else {
    estimate.bound = estimate.memory_bound ? KernelBound::memory : KernelBound::compute;
  }
  estimate.achieved_flops_per_s = estimate.time > 0 ? work.flops / ps_to_seconds(estimate.time) : 0.0;
  return estimate;
}

}  // namespace simctl
