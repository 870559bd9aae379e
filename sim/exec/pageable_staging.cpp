#include "sim/exec/pageable_staging.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace simctl {

TransferStage staging_stage(const CpuSpec& cpu) {
  const CacheLevel* dram = cpu.level("dram");
  if (dram == nullptr) {
    throw std::runtime_error("pageable host memory needs " + cpu.name + " (" + cpu.id +
                             ") to have a dram level in its memory_hierarchy (models/devices/catalogue/cpus.yaml): "
                             "one core's DRAM bandwidth sets the staging memcpy");
  }
  return TransferStage{cpu.id + " memcpy to pinned buffer", dram->latency, dram->bandwidth, dram->line};
}

TransferTime pageable_staging(const CpuSpec& cpu, Bytes bytes) { return transfer_time({staging_stage(cpu)}, bytes); }

TransferTime first_staging_chunk(const CpuSpec& cpu, Bytes bytes) {
  return pageable_staging(cpu, std::min(bytes, kStagingChunk));
}

double staged_dma_rate_cap(const CpuSpec& cpu, Bytes bytes) {
  const Bytes chunks = (bytes + kStagingChunk - 1) / kStagingChunk;
  if (chunks <= 1) return std::numeric_limits<double>::infinity();
  return staging_stage(cpu).bandwidth.bytes_per_s * static_cast<double>(chunks) / static_cast<double>(chunks - 1);
}

const CpuSpec& host_cpu(const System& system, const DeviceCatalogue& catalogue, EndpointId gpu) {
  const auto socket = system.nearest(gpu, PartKind::cpu_socket);
  const CpuSpec* cpu = socket ? catalogue.find_cpu(system.part(*socket).model) : nullptr;
  if (cpu == nullptr) {
    throw std::runtime_error("no CPU socket with a catalogue model is reachable from " + system.part(gpu).name +
                             "; pageable host memory needs one to stage copies");
  }
  return *cpu;
}

}  // namespace simctl
