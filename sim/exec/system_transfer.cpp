#include "sim/exec/system_transfer.hpp"

#include <stdexcept>

#include "sim/exec/pageable_staging.hpp"
#include "sim/topology/part_lookup.hpp"

namespace simctl {
namespace {

std::string bytes_text(Bytes b) {
  if (b >= 1024 && b % 1024 == 0) return std::to_string(b / 1024) + " KiB";
  return std::to_string(b) + " B";
}

const CpuSpec* cpu_of(const System& system, const DeviceCatalogue& catalogue, EndpointId part) {
  return catalogue.find_cpu(system.part(part).model);
}

// A host DRAM read alone, as its CPU sees it: the cores' load latency and
// the socket's peak bandwidth, where the catalogue gives them.
TransferStage host_dram_alone(const System& system, const DeviceCatalogue& catalogue, EndpointId dram,
                              const MemorySpec* memory, TransferStage stage) {
  stage.latency = memory ? memory->access_latency : 0;
  if (const auto socket = system.nearest(dram, PartKind::cpu_socket)) {
    if (const CpuSpec* cpu = cpu_of(system, catalogue, *socket)) {
      stage.bandwidth = cpu->memory_bandwidth;
      if (const CacheLevel* level = cpu->level("dram")) stage.latency = level->latency;
    }
  }
  return stage;
}

// The stage a part's own memory adds at one end; none for parts that only
// forward (switches, NICs, a CPU socket named without a level). `writing`:
// the part is the destination.
std::vector<TransferStage> end_stage(const System& system, const DeviceCatalogue& catalogue, const TransferEnd& end,
                                     bool alone, bool writing) {
  const Part& part = system.part(end.part);
  if (!end.level.empty()) {
    const CacheLevel& l = *cpu_of(system, catalogue, end.part)->level(end.level);
    return {TransferStage{part.name + "@" + end.level + " (one core, " + bytes_text(l.line) + " lines)", l.latency,
                          l.bandwidth, l.line}};
  }
  switch (part.kind) {
    case PartKind::dram: {
      const MemorySpec* memory = catalogue.find_memory(part.model);
      const Bytes burst = memory ? memory->burst : 64;
      // Its memory_bus link carries the access latency on a route; a read
      // of the DRAM alone pays it here.
      const TransferStage stage{part.name + " (" + bytes_text(burst) + " bursts)", 0, Bandwidth{}, burst};
      return {alone ? host_dram_alone(system, catalogue, end.part, memory, stage) : stage};
    }
    case PartKind::gpu: {
      const GpuSpec& gpu = catalogue.gpu(part.model);
      const MemorySpec* memory = catalogue.find_memory(gpu.memory_kind);
      const Bytes burst = memory ? memory->burst : 32;
      return {TransferStage{part.name + " " + gpu.memory_kind + " (" + bytes_text(burst) + " sectors)",
                            memory ? memory->access_latency : 0, gpu.memory_bandwidth, burst}};
    }
    case PartKind::storage: {
      const StorageSpec* disk = catalogue.find_storage(part.model);
      if (disk == nullptr) return {};
      // Its cable already carries the access latency and read rate
      // (system_config.cpp), so only a read of the disk alone adds them here.
      const Bandwidth rate = writing ? disk->write_bandwidth : disk->read_bandwidth;
      return {TransferStage{part.name + " " + disk->kind + " (" + bytes_text(disk->block) + " blocks)",
                            alone ? disk->read_latency : 0, rate, disk->block}};
    }
    default: return {};
  }
}

bool is_host_memory(const System& system, const TransferEnd& end) {
  return !end.level.empty() || system.part(end.part).kind == PartKind::dram;
}

}  // namespace

TransferEnd parse_transfer_end(const System& system, const DeviceCatalogue& catalogue, std::string_view text) {
  const auto at = text.rfind('@');
  TransferEnd end{resolve_part(system, text.substr(0, at)), ""};
  if (at == std::string_view::npos) return end;
  end.level = std::string(text.substr(at + 1));
  const Part& part = system.part(end.part);
  const CpuSpec* cpu = cpu_of(system, catalogue, end.part);
  if (part.kind != PartKind::cpu_socket || cpu == nullptr) {
    throw std::invalid_argument("'" + std::string(text) + "': only a CPU socket has levels (" + part.name + " is a " +
                                std::string(to_string(part.kind)) + ")");
  }
  if (cpu->level(end.level) == nullptr) {
    std::string valid;
    for (const CacheLevel& l : cpu->hierarchy) valid += (valid.empty() ? "" : ", ") + l.level;
    throw std::invalid_argument("'" + std::string(text) + "': " + cpu->id + " has no level '" + end.level +
                                "' in the catalogue; valid: " + (valid.empty() ? "none" : valid));
  }
  return end;
}

std::vector<TransferStage> transfer_stages(const System& system, const DeviceCatalogue& catalogue,
                                           const TransferEnd& from, const TransferEnd& to) {
  const bool alone = from.part == to.part;
  std::vector<TransferStage> stages = end_stage(system, catalogue, from, alone, false);
  // A dram or storage end alone streams at its catalogue rate; on a route
  // its cable does (storage caps it; a DRAM's memory_bus is its channels).
  if (alone) {
    if (from.level != to.level) throw std::invalid_argument("both ends are one part: name one level, or none");
    return stages;
  }
  const Path& path = system.route(from.part, to.part);
  for (LinkId link : path.links) {
    const LinkSpec& spec = system.link_spec(link);
    stages.push_back(TransferStage{std::string(to_string(spec.kind)) + " " + system.link_name(link), spec.latency,
                                   spec.effective(), 1});
  }
  for (TransferStage& s : end_stage(system, catalogue, to, false, true)) stages.push_back(std::move(s));
  return stages;
}

bool is_host_device_copy(const System& system, const TransferEnd& from, const TransferEnd& to) {
  const auto is_gpu = [&system](const TransferEnd& e) {
    return e.level.empty() && system.part(e.part).kind == PartKind::gpu;
  };
  return (is_host_memory(system, from) && is_gpu(to)) || (is_gpu(from) && is_host_memory(system, to));
}

TransferTime system_transfer(const System& system, const DeviceCatalogue& catalogue, const TransferEnd& from,
                             const TransferEnd& to, Bytes bytes, bool pageable) {
  const TransferTime dma = transfer_time(transfer_stages(system, catalogue, from, to), bytes);
  if (!pageable) return dma;
  if (!is_host_device_copy(system, from, to)) {
    throw std::invalid_argument("pageable host memory applies to copies between host memory and a GPU");
  }
  const EndpointId gpu = system.part(from.part).kind == PartKind::gpu ? from.part : to.part;
  const TransferTime memcpy = pageable_staging(host_cpu(system, catalogue, gpu), bytes);
  return chunked_staging(memcpy, dma, kStagingChunk, system.part(to.part).kind == PartKind::gpu);
}

}  // namespace simctl
