#pragma once
// Shape-dependent efficiency of matrix products and fused attention, as a
// fraction of the part's dense peak for the dtype.
#include <cstdint>

#include "models/devices/device_specs.hpp"

namespace simctl {

// GEMM C[m,n] = A[m,k] B[k,n], `batch` times, priced as a tiled kernel:
//  - The output is cut into tm x tn tiles, one thread block each; the tiles
//    run in waves over the SMs. Partial tiles at the edges and an unfilled
//    last wave do work that is thrown away (tile and wave quantisation):
//      utilisation = m*n*batch / (waves * sm_count * tm * tn).
//    Where the library splits the last partial wave along K over all SMs
//    (stream-K, the Hopper cuBLAS/CUTLASS 3 scheduler), that wave costs
//    remainder / sm_count / tail_split_efficiency of a wave instead of one.
//  - Each tile pays a fixed prologue/epilogue (pipeline fill, writing C)
//    worth `k_overhead` steps of its K loop, so short K saturates:
//      k_saturation = k / (k + k_overhead).
//  - Smaller tiles peak lower (less operand reuse per byte of shared memory),
//    which their relative_efficiency states.
// The library is assumed to pick the best catalogue tile (either orientation).
// Returns max_efficiency[dtype] when the shape is not given (m, n or k <= 0).
// Throws std::invalid_argument when the dtype has no GEMM efficiency.
double gemm_efficiency(const GpuSpec& gpu, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t batch);

// Fused attention (FlashAttention-2 style): the measured best efficiency for
// the dtype, reduced for short key/value loops (per-tile fixed cost, same form
// as k_saturation above) and for small head dimensions (less work per byte of
// Q/K/V staged in shared memory). Shape factors apply only when given:
// q_len is unused today (the kernel tiles over it with full waves at training
// sizes), kv_len and head_dim when > 0.
double attention_efficiency(const GpuSpec& gpu, DType dtype, std::int64_t kv_len, std::int64_t head_dim);

}  // namespace simctl
