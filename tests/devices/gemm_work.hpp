#pragma once
// The work of one GEMM C[m,n] = A[m,k] B[k,n] as the device tests price it:
// 2mnk FLOPs, each operand read or written once in `dtype`.
#include <cstdint>

#include "models/devices/compute_work.hpp"

namespace simctl::testing {

inline ComputeWork gemm_work(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype) {
  ComputeWork work;
  work.kind = ComputeKind::gemm;
  work.dtype = dtype;
  work.m = m;
  work.n = n;
  work.k = k;
  const double dm = static_cast<double>(m), dn = static_cast<double>(n), dk = static_cast<double>(k);
  work.flops = 2.0 * dm * dn * dk;
  work.memory_bytes = bytes_per_element(dtype) * (dm * dk + dk * dn + dm * dn);
  return work;
}

}  // namespace simctl::testing
