#pragma once
// Turn one catalogue entry (a YAML mapping) into a spec. Every malformed
// field raises ConfigError located at that field, via ConfigNode.
#include <string>

#include "models/devices/device_specs.hpp"
#include "sim/config/config_node.hpp"

namespace simctl {

GpuSpec parse_gpu(const std::string& id, const ConfigNode& entry);
// A GPU whose compute_model names `same_die_as` takes that part's power
// model, anchored at the die part's TDP and datasheet peak (power_model.hpp).
// `entry` is the GPU's catalogue entry, for errors.
void resolve_same_die(const ConfigNode& entry, GpuSpec& gpu, const GpuSpec* die);
CpuSpec parse_cpu(const std::string& id, const ConfigNode& entry);
MemorySpec parse_memory(const std::string& id, const ConfigNode& entry);
NicSpec parse_nic(const std::string& id, const ConfigNode& entry);
StorageSpec parse_storage(const std::string& id, const ConfigNode& entry);

// Shared field readers.
std::string read_source(const ConfigNode& block);                     // required, non-empty
double read_fraction(const ConfigNode& block, std::string_view key);  // in (0, 1]
DType read_dtype_key(const ConfigNode& key_node, const std::string& key);
// The peak_dense and compute_model blocks of `entry` (a GPU's, or a CPU's that
// has them) into the fields the roofline compute model reads.
void read_compute_figures(const ConfigNode& entry, GpuSpec& spec);

}  // namespace simctl
