#pragma once
// Turns an operator's shape into the counts the roofline prices: FLOPs and
// bytes moved in device memory. One place so every generator counts alike.
#include <cstdint>

#include "models/devices/compute_work.hpp"

namespace simctl {

// C[m,n] = A[m,k] * B[k,n]: 2mnk FLOPs; reads A and B in `dtype`, writes C
// with `c_bytes_per_element` (a weight gradient may be kept wider).
ComputeWork gemm_work(std::int64_t m, std::int64_t n, std::int64_t k, DType dtype, int c_bytes_per_element);

// A kernel streaming `elements` values through `tensors_touched` full-size
// tensors (reads + writes), doing `flops_per_element` work on each value.
ComputeWork streaming_work(ComputeKind kind, DType dtype, double elements, double flops_per_element,
                           double tensors_touched);

// A copy given in bytes, where the caller knows the tensor's size but not
// its dtype (a gather's may be bf16 or fp8): `bytes_per_tensor` through
// each of the `tensors_touched` tensors it reads or writes, no FLOPs.
ComputeWork byte_stream(double bytes_per_tensor, double tensors_touched);

// Cross-entropy over the logits, FLOPs per logit: forward max, subtract, exp,
// sum, log-normalise; backward softmax - one_hot, scaled.
inline constexpr double kLossForwardFlops = 5.0;
inline constexpr double kLossBackwardFlops = 2.0;

}  // namespace simctl
