// Parsers for the parts around the GPU: CPUs, memory, NICs, storage.
#include <string>

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
  if (!figures.peak_rate.has(DType::fp32)) entry.child("peak_dense").fail("needs fp32 (the vector FMA rate)");
  cpu.peak_rate = figures.peak_rate;
  cpu.compute = figures.compute;
  cpu.launch_overhead = figures.launch_overhead;
  cpu.compute_sources = figures.sources;
}

}  // namespace

CpuSpec parse_cpu(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "cores", "memory_kind", "memory_channels", "memory_bandwidth", "pcie_lanes",
                     "pcie_generation", "tdp_watts", "source", "peak_dense", "compute_model"});
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
  return cpu;
}

MemorySpec parse_memory(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "kind", "transfer_rate_mts", "channel_width_bits", "channel_bandwidth", "source"});
  MemorySpec memory;
  memory.id = id;
  memory.name = entry.string("name");
  memory.kind = entry.string("kind");
  memory.transfer_rate_mts = positive_number(entry, "transfer_rate_mts");
  memory.channel_width_bits = positive_int(entry, "channel_width_bits");
  memory.channel_bandwidth = entry.bandwidth("channel_bandwidth");
  memory.source = read_source(entry);
  return memory;
}

NicSpec parse_nic(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "protocol", "ports", "port_bandwidth", "host_interface", "source"});
  NicSpec nic;
  nic.id = id;
  nic.name = entry.string("name");
  nic.protocol = entry.choice("protocol", {"infiniband", "ethernet", "infiniband_or_ethernet"});
  nic.ports = positive_int(entry, "ports");
  nic.port_bandwidth = entry.bandwidth("port_bandwidth");
  nic.host_interface = entry.string("host_interface");
  nic.source = read_source(entry);
  return nic;
}

StorageSpec parse_storage(const std::string& id, const ConfigNode& entry) {
  entry.expect_keys({"name", "kind", "read_bandwidth", "write_bandwidth", "read_latency", "source"});
  StorageSpec storage;
  storage.id = id;
  storage.name = entry.string("name");
  storage.kind = entry.choice("kind", {"nvme", "sata_ssd", "hdd", "network_fs"});
  storage.read_bandwidth = entry.bandwidth("read_bandwidth");
  storage.write_bandwidth = entry.bandwidth("write_bandwidth");
  storage.read_latency = entry.time("read_latency");
  storage.source = read_source(entry);
  return storage;
}

}  // namespace simctl
