#pragma once
// A kernel that runs while communication kernels hold some of the GPU's
// streaming multiprocessors gets the rest. Transformer Engine's userbuffers
// overlap does this on purpose: it launches the GEMM with
// math_sm_count = sm_count - num_comm_sm ("set_sm_margin") so that the
// communication kernels it pipelines with the GEMM are never starved.
//
// Tensor-core and CUDA-core throughput scale with the SMs that issue it, and
// the GEMM's waves are counted over the SMs it has (gemm_efficiency.hpp), so
// a GEMM on 116 of 132 SMs is slowed by about 132/116, more or less with its
// wave quantisation. Device memory bandwidth stays whole: the remaining SMs
// can still saturate HBM.
#include "models/devices/device_specs.hpp"

namespace simctl {

// `gpu` as a kernel sees it when `comm_sms` of its SMs are taken. Throws
// std::invalid_argument when comm_sms is negative or leaves no SM, or the
// part has no SM count to take them from.
GpuSpec with_sms_taken(const GpuSpec& gpu, int comm_sms);

}  // namespace simctl
