#pragma once
// The parts a roofline can be drawn for: every GPU, and every CPU whose
// catalogue entry carries peak_dense and compute_model (cpus.yaml). The
// compute model prices ops on a GpuSpec, so a CPU's figures fill the same
// fields: its vector (FMA) rate as fp32, its DDR bandwidth as the memory.
#include <string>
#include <string_view>
#include <vector>

#include "models/devices/device_catalogue.hpp"

namespace simctl {

// A CPU as the compute model sees it. A dtype the CPU has no unit for
// (bf16, fp16, tf32 on a CPU without a matrix engine) runs at its fp32 rate
// and efficiency, as oneDNN and MKL convert such operands to fp32.
// Throws std::invalid_argument when the entry has no compute figures.
GpuSpec cpu_compute_device(const CpuSpec& cpu);

// The GPU or CPU `id`; throws std::invalid_argument listing the valid ids.
GpuSpec roofline_device(const DeviceCatalogue& catalogue, std::string_view id);

// Every id roofline_device accepts: GPUs, then CPUs with compute figures.
std::vector<std::string> roofline_device_ids(const DeviceCatalogue& catalogue);

}  // namespace simctl
