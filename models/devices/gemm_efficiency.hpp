#pragma once
// Shape-dependent efficiency of matrix products and fused attention, as a
// fraction of the part's dense peak for the dtype.
#include <cstdint>

#include "models/devices/compute_work.hpp"
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
//    worth `k_overhead[dtype]` steps of its K loop, so short K saturates:
//      k_saturation = k / (k + k_overhead[dtype]).
//    The cost is time, so a dtype with faster K-steps (fp8: twice bf16's
//    rate) pays more of them; Hopper's fit has bf16 250, fp8 523.
//  - Smaller tiles peak lower (less operand reuse per byte of shared memory),
//    which their relative_efficiency states.
// The library is assumed to pick the best catalogue tile (either orientation).
// Returns max_efficiency[dtype] when the shape is not given (m, n or k <= 0).
// Throws std::invalid_argument when the dtype has no GEMM efficiency.
double gemm_efficiency(const GpuSpec& gpu, DType dtype, std::int64_t m, std::int64_t n, std::int64_t k,
                       std::int64_t batch);

// Fused attention, work.m = query length, work.n = key/value length, work.k =
// head dim (shape factors apply where > 0).
//  - Where the GPU's catalogue fits work.attention_kernel for work.dtype, the
//    pass's own curve (forward or backward): the fitted best efficiency at the
//    head dim (linear between fitted head dims), times x / (x + seq_overhead)
//    with x the keys a query row visits (per-tile fixed cost: softmax
//    rescaling, pipeline fill and the epilogue, amortised over the KV loop),
//    times causal_factor when causal (masked diagonal tiles, load imbalance).
//  - Otherwise, for flash2 only, the generic FlashAttention-2 curve: the
//    measured best fwd+bwd efficiency for the dtype, reduced for short KV
//    loops and small head dims (same saturating form); pass and masking are
//    not told apart there (the A100 calibration).
//  - Either times the share of the SMs the kernel's thread blocks fill, at
//    most 1: work.batch (batch x heads) times 128-row tiles of the queries
//    (forward) or keys (backward), over the SMs. Every fitted point fills
//    the GPU many times over; a small model's few heads do not.
// Throws std::invalid_argument for another kernel the GPU has no fit for.
double attention_efficiency(const GpuSpec& gpu, const ComputeWork& work);

}  // namespace simctl
