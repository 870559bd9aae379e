#pragma once
// The extra step of a copy from or to pageable host memory. The GPU's copy
// engine can only DMA page-locked memory, so the CUDA driver copies a
// pageable buffer through a pinned staging buffer: one CPU thread memcpys
// the bytes there, then the DMA runs ("the CUDA driver must first allocate
// a temporary page-locked, or pinned, host array, copy the host data to the
// pinned array, and then transfer the data from the pinned array to device
// memory": NVIDIA, "How to Optimize Data Transfers in CUDA C/C++",
// https://developer.nvidia.com/blog/how-optimize-data-transfers-cuda-cc/).
// The memcpy streams from DRAM at one core's rate (the CPU's memory_hierarchy
// dram level). The driver pipelines the two in chunks: the DMA of one chunk
// overlaps the memcpy of the next, so a large copy runs at the slower of the
// two rates (the memcpy, on every measured host) and its first byte reaches
// the GPU after one chunk, not after the whole buffer. The 2026-11-25 H100
// measurement (models/devices/measured/h100_sxm_2026-11-25.json) shows it:
// pageable device-to-host at 16 MiB takes 1.25 ms against 0.31 ms pinned, a
// rate of 13.4 GB/s that holds from 16 MiB to 1 GiB, where back to back the
// pinned DMA's 23 % would be added on top.
//
// NVIDIA does not publish the staging chunk's size. kStagingChunk is an
// assumption; the measurement only bounds it (at 1 MiB pageable costs the
// memcpy plus the whole DMA, so a chunk is at least about 1 MiB).
#include "models/devices/device_catalogue.hpp"
#include "models/network/transfer_time.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

inline constexpr Bytes kStagingChunk = 2 * kMiB;

// The memcpy into (or out of) the staging buffer on `cpu`, as a stage.
// Throws std::runtime_error when the catalogue gives the CPU no dram level.
TransferStage staging_stage(const CpuSpec& cpu);
// That memcpy of `bytes`.
TransferTime pageable_staging(const CpuSpec& cpu, Bytes bytes);
// The memcpy of the chunk that must be staged before the DMA can start (or
// that is left after it ends): one chunk, or the whole of a smaller copy.
TransferTime first_staging_chunk(const CpuSpec& cpu, Bytes bytes);
// The rate, bytes/s, at which the memcpy of the other chunks lets the DMA of
// a whole copy of `bytes` proceed (the memcpy's rate x n / (n - 1) over n
// chunks); unbounded for a copy of one chunk, whose DMA waits on nothing.
double staged_dma_rate_cap(const CpuSpec& cpu, Bytes bytes);

// The CPU socket nearest `gpu` (the one whose driver thread stages its
// copies). Throws std::runtime_error when there is none or it has no model.
const CpuSpec& host_cpu(const System& system, const DeviceCatalogue& catalogue, EndpointId gpu);

}  // namespace simctl
