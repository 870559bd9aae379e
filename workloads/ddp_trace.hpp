#pragma once
// PyTorch DistributedDataParallel as a per-rank trace: every rank runs the
// same forward and backward passes on its own micro-batches; during the last
// micro-batch's backward, each gradient bucket is all-reduced over all ranks as
// soon as the backward op completing its last gradient has run (overlap), or
// after the whole backward (overlap: false); then a fused Adam step runs once
// every bucket has been reduced. Earlier micro-batches of a gradient-
// accumulation step run under no_sync(), so they communicate nothing.
#include "workloads/trace.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// Adam's per-parameter FLOPs: two moment updates, bias corrections, sqrt,
// divide, weight decay and the update itself.
inline constexpr double kAdamFlopsPerParameter = 12.0;

// Input tokens and labels as int64, copied host to device per micro-batch.
inline constexpr double kInputBytesPerToken = 2.0 * 8.0;

// Bytes the data loader hands over per sample when the workload's `input:`
// does not say: token ids and labels, MLP features, or uint8 image pixels.
double model_input_bytes_per_sample(const WorkloadSpec& spec);

// One training step on `num_gpus` ranks; throws std::invalid_argument when
// num_gpus differs from spec.parallel.data or the strategy is not DDP.
Trace build_ddp_trace(const WorkloadSpec& spec, int num_gpus);

// The fused optimizer update over all parameters (fp32 master weights and
// moments; also writes the low-precision model copy under mixed precision).
ComputeWork adam_step_work(const WorkloadSpec& spec);

// Bytes Adam reads and writes per parameter it updates: fp32 master weights
// and both moments read and written (24), the gradient read, and under mixed
// precision the 16-bit model copy written (28 B for bf16). Memory-bound on a
// GPU and on a host CPU alike (ZeRO-Offload's CPU Adam streams the same
// tensors; Ren et al. 2021, Sec. 5.1). An unfused (for-loop) AdamW, which a
// framework entry may say it runs (spec.optimizer_fused false), pays each of
// its elementwise kernels' traffic instead: kUnfusedAdamStateBytes plus the
// gradient read twice.
double adam_bytes_per_parameter(const WorkloadSpec& spec);

// A for-loop AdamW (Composer's DecoupledAdamW, torch.optim.AdamW with
// foreach=False) runs nine elementwise kernels per tensor, each reading and
// writing fp32: weight decay (param *=, 8 B), exp_avg *= and += grad (8 + 8),
// exp_avg_sq *= and += grad^2 (8 + 8), sqrt, divide and + eps into a
// temporary (8 + 8 + 8) and param += exp_avg / denom (16): 80 B a parameter
// besides the gradient reads, against the fused kernel's 24. On our H100
// (models/devices/measured/h100_sxm_kernels_2026-11-25.json) the for-loop
// AdamW moved 28 B/param at 0.98-1.0 TB/s on 0.35-1.3 B parameters, the
// fused one at 2.3-2.5 TB/s: the 2.6x this traffic ratio gives.
inline constexpr double kUnfusedAdamStateBytes = 80.0;
inline constexpr double kFusedAdamStateBytes = 24.0;

}  // namespace simctl
