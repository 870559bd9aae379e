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
// dram level). The driver pipelines the two in chunks, but the blog's
// measurements (pageable H2D at well under half of pinned) are what running
// them back to back gives, so they are modelled back to back.
#include "models/devices/device_catalogue.hpp"
#include "models/network/transfer_time.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

// The memcpy into (or out of) the staging buffer on `cpu`, as a stage.
// Throws std::runtime_error when the catalogue gives the CPU no dram level.
TransferStage staging_stage(const CpuSpec& cpu);
// That memcpy of `bytes`.
TransferTime pageable_staging(const CpuSpec& cpu, Bytes bytes);

// The CPU socket nearest `gpu` (the one whose driver thread stages its
// copies). Throws std::runtime_error when there is none or it has no model.
const CpuSpec& host_cpu(const System& system, const DeviceCatalogue& catalogue, EndpointId gpu);

}  // namespace simctl
