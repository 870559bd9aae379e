// Parsers for the parts around the GPU: CPUs, memory, NICs, storage.
#include <algorithm>
#include <string>
#include <vector>

#include "models/devices/catalogue_parsers.hpp"

namespace simctl {
namespace {

double positive_number(const ConfigNode& block, std::string_view key) {
  ConfigNode node = block.child(key);
  double value = node.as_number();
  if (value <= 0) node.fail("must be positive, got " + std::to_string(value));
  return value;
}

int positive_int(const ConfigNode& block, std::string_view key) {
  return static_cast<int>(block.positive_integer(key));
}

// Both blocks or neither: a peak without efficiencies cannot be priced.
void read_cpu_compute(const ConfigNode& entry, CpuSpec& cpu) {
  if (!entry.has("peak_dense")) entry.child("compute_model").fail("needs peak_dense beside it");
  if (!entry.has("compute_model")) entry.child("peak_dense").fail("needs compute_model beside it");
  GpuSpec figures;
  read_compute_figures(entry, figures);
  // Only GPU sections resolve a die's part; a CPU's would be ignored.
  if (!figures.compute.die_part.empty())
    entry.child("compute_model").child("same_die_as").fail("is for GPUs; give a CPU its own power_model or none");
  if (!figures.peak_rate.has(DType::fp32)) entry.child("peak_dense").fail("needs fp32 (the vector FMA rate)");
  cpu.peak_rate = figures.peak_rate;
  cpu.compute = figures.compute;
  cpu.launch_overhead = figures.launch_overhead;
  cpu.compute_sources = figures.sources;
}

// `memory_hierarchy:` a list from L1 to DRAM, each level slower and larger
// than the one before (checked, so a typo cannot invert the hierarchy).
std::vector<CacheLevel> parse_hierarchy(const ConfigNode& list) {
  std::vector<CacheLevel> levels;
  const std::vector<std::string> order{"l1", "l2", "l3", "dram"};
  const auto rank = [&order](const std::string& name) { return std::find(order.begin(), order.end(), name); };
  for (const ConfigNode& entry : list.elements()) {
    entry.expect_keys({"level", "size", "shared", "latency", "bandwidth", "line", "source"});
    CacheLevel level;
    level.level = entry.choice("level", {"l1", "l2", "l3", "dram"});
    if (level.level != "dram") level.size = entry.size("size");
    level.shared = entry.bool_or("shared", false);
    level.latency = entry.time("latency");
    level.bandwidth = entry.bandwidth("bandwidth");
    level.line = entry.size_or("line", 64);
    if (level.line <= 0) entry.child("line").fail("must be a positive size, e.g. 64 B");
    level.source = read_source(entry);
    if (!levels.empty() && (level.latency <= levels.back().latency || rank(level.level) <= rank(levels.back().level))) {
      entry.child("level").fail("levels must run from l1 to dram, each with a longer latency than the one before");
    }
    levels.push_back(level);
  }
  return levels;
}

}  // namespace

CpuSpec parse_cpu(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "cores", "memory_kind", "memory_channels", "memory_bandwidth", "pcie_lanes",
                     "pcie_generation", "tdp_watts", "source", "peak_dense", "compute_model", "memory_hierarchy"});
  CpuSpec cpu;
  cpu.id = id;
  cpu.name = entry.string("name");
  cpu.cores = positive_int(entry, "cores");
  cpu.memory_kind = entry.string("memory_kind");
  if (entry.has("memory_channels")) cpu.memory_channels = positive_int(entry, "memory_channels");
  cpu.memory_bandwidth = entry.bandwidth("memory_bandwidth");
  cpu.pcie_lanes = positive_int(entry, "pcie_lanes");
  cpu.pcie_generation = positive_int(entry, "pcie_generation");
  cpu.tdp_watts = positive_number(entry, "tdp_watts");
  cpu.source = read_source(entry);
  if (entry.has("peak_dense") || entry.has("compute_model")) read_cpu_compute(entry, cpu);
  if (auto list = entry.optional_child("memory_hierarchy")) cpu.hierarchy = parse_hierarchy(*list);
  return cpu;
}

MemorySpec parse_memory(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "kind", "transfer_rate_mts", "channel_width_bits", "channel_bandwidth", "burst",
                     "access_latency", "source"});
  MemorySpec memory;
  memory.id = id;
  memory.name = entry.string("name");
  memory.kind = entry.string("kind");
  memory.transfer_rate_mts = positive_number(entry, "transfer_rate_mts");
  memory.channel_width_bits = positive_int(entry, "channel_width_bits");
  memory.channel_bandwidth = entry.bandwidth("channel_bandwidth");
  memory.burst = entry.size_or("burst", 64);
  if (memory.burst <= 0) entry.child("burst").fail("must be a positive size, e.g. 64 B");
  memory.access_latency = entry.time_or("access_latency", 0);
  memory.source = read_source(entry);
  return memory;
}

NicSpec parse_nic(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "protocol", "ports", "port_bandwidth", "fabric_bandwidth", "host_interface", "source"});
  NicSpec nic;
  nic.id = id;
  nic.name = entry.string("name");
  nic.protocol = entry.choice("protocol", {"infiniband", "ethernet", "infiniband_or_ethernet"});
  nic.ports = positive_int(entry, "ports");
  nic.port_bandwidth = entry.bandwidth("port_bandwidth");
  nic.fabric_bandwidth = nic.port_bandwidth;
  if (auto fabric = entry.optional_child("fabric_bandwidth")) {
    nic.fabric_bandwidth = entry.bandwidth("fabric_bandwidth");
    const double most = nic.port_bandwidth.bytes_per_s * nic.ports;
    if (nic.fabric_bandwidth.bytes_per_s > most * (1 + 1e-9))
      fabric->fail("exceeds the sum of the NIC's " + std::to_string(nic.ports) + " ports of " +
                   entry.child("port_bandwidth").as_string() + "; at most ports x port_bandwidth");
  }
  nic.host_interface = entry.string("host_interface");
  nic.source = read_source(entry);
  return nic;
}

StorageSpec parse_storage(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "kind", "read_bandwidth", "write_bandwidth", "read_latency", "block", "source"});
  StorageSpec storage;
  storage.id = id;
  storage.name = entry.string("name");
  storage.kind = entry.choice("kind", {"nvme", "sata_ssd", "hdd", "network_fs"});
  storage.read_bandwidth = entry.bandwidth("read_bandwidth");
  storage.write_bandwidth = entry.bandwidth("write_bandwidth");
  storage.read_latency = entry.time("read_latency");
  storage.block = entry.size_or("block", 4096);
  if (storage.block <= 0) entry.child("block").fail("must be a positive size, e.g. 4 KiB");
  storage.source = read_source(entry);
  return storage;
}

}  // namespace simctl
