#include "models/devices/roofline_device.hpp"

#include <stdexcept>

namespace simctl {
namespace {

// Copies the fp32 entry to every dtype the table lacks.
template <typename T>
void fill_from_fp32(DTypeTable<T>& table) {
  const auto fp32 = table.find(DType::fp32);
  if (!fp32) return;
  for (DType d : kAllDTypes) {
    if (!table.has(d)) table.set(d, *fp32);
  }
}

}  // namespace

GpuSpec cpu_compute_device(const CpuSpec& cpu) {
  if (!cpu.has_compute_figures())
    throw std::invalid_argument(cpu.name + " (" + cpu.id + ") has no peak_dense/compute_model figures in cpus.yaml");
  GpuSpec spec;
  spec.id = cpu.id;
  spec.name = cpu.name;
  spec.architecture = "cpu";
  spec.peak_rate = cpu.peak_rate;
  spec.memory_kind = cpu.memory_kind;
  spec.memory_bandwidth = cpu.memory_bandwidth;
  spec.scale_up_link = "none";
  spec.tdp_watts = cpu.tdp_watts;
  spec.launch_overhead = cpu.launch_overhead;
  spec.compute = cpu.compute;
  spec.sources = cpu.compute_sources;
  spec.sources["memory"] = cpu.source;
  fill_from_fp32(spec.peak_rate);
  fill_from_fp32(spec.compute.gemm.max_efficiency);
  fill_from_fp32(spec.compute.gemm.k_overhead);
  fill_from_fp32(spec.compute.attention.max_efficiency);
  return spec;
}

GpuSpec roofline_device(const DeviceCatalogue& catalogue, std::string_view id) {
  if (const GpuSpec* gpu = catalogue.find_gpu(id)) return *gpu;
  if (const CpuSpec* cpu = catalogue.find_cpu(id); cpu && cpu->has_compute_figures()) return cpu_compute_device(*cpu);
  std::string valid;
  for (const auto& known : roofline_device_ids(catalogue)) valid += (valid.empty() ? "" : ", ") + known;
  throw std::invalid_argument("unknown device '" + std::string(id) + "'; valid: " + valid);
}

std::vector<std::string> roofline_device_ids(const DeviceCatalogue& catalogue) {
  std::vector<std::string> ids = catalogue.gpu_ids();
  for (const auto& id : catalogue.cpu_ids()) {
    if (catalogue.cpu(id).has_compute_figures()) ids.push_back(id);
  }
  return ids;
}

}  // namespace simctl
