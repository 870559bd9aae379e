#include "workloads/op_costs.hpp"

namespace simctl {

ComputeWork gemm_work(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, int c_bytes_per_element) {
  ComputeWork w;
  w.kind = ComputeKind::gemm;
  w.dtype = dtype;
  const double md = static_cast<double>(m), nd = static_cast<double>(n), kd = static_cast<double>(k);
  w.flops = 2.0 * md * nd * kd;
  w.memory_bytes = (md * kd + kd * nd) * bytes_per_element(dtype) + md * nd * c_bytes_per_element;
  w.m = m;
  w.n = n;
  w.k = k;
  return w;
}

ComputeWork streaming_work(ComputeKind kind, DType dtype, double elements, double flops_per_element,
                           double tensors_touched) {
  ComputeWork w;
  w.kind = kind;
  w.dtype = dtype;
  w.flops = elements * flops_per_element;
  w.memory_bytes = elements * tensors_touched * bytes_per_element(dtype);
  return w;
}

ComputeWork byte_stream(double bytes_per_tensor, double tensors_touched) {
  ComputeWork w;
  w.kind = ComputeKind::elementwise;
  w.memory_bytes = bytes_per_tensor * tensors_touched;
  return w;
}

}  // namespace simctl
