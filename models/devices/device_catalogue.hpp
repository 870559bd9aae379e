#pragma once
// The catalogue of real parts (GPUs, CPUs, memory, NICs, storage), read from
// YAML files in one directory. A value type: load it, pass it around, no
// global state. Lookups by lower-case id, e.g. gpu("h100-sxm").
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "models/devices/device_specs.hpp"
#include "sim/config/config_node.hpp"

namespace simctl {

class DeviceCatalogue {
 public:
  // The directory holding the catalogue shipped with simctl.
  static std::string default_directory();

  // Reads every *.yaml file of `directory` (in name order). Each file holds
  // any of the top-level sections gpus, cpus, memory, nics, storage; an id may
  // appear only once across all files. Malformed input raises ConfigError.
  static DeviceCatalogue load(const std::string& directory = default_directory());
  // Same for one YAML text; `file_label` names it in error messages.
  static DeviceCatalogue from_yaml(const std::string& text, const std::string& file_label);

  // Adds the entries of one parsed file.
  void add(const ConfigNode& root);

  // A GPU defined outside the catalogue files (a system's variant,
  // gpu_variant.hpp); replaces an entry of the same id.
  void add_gpu(const GpuSpec& gpu);

  const GpuSpec* find_gpu(std::string_view id) const;
  const GpuSpec& gpu(std::string_view id) const;  // std::out_of_range listing valid ids
  std::vector<std::string> gpu_ids() const;

  const CpuSpec* find_cpu(std::string_view id) const;
  const CpuSpec& cpu(std::string_view id) const;
  std::vector<std::string> cpu_ids() const;

  const MemorySpec* find_memory(std::string_view id) const;
  const MemorySpec& memory(std::string_view id) const;
  std::vector<std::string> memory_ids() const;

  const NicSpec* find_nic(std::string_view id) const;
  const NicSpec& nic(std::string_view id) const;
  std::vector<std::string> nic_ids() const;

  const StorageSpec* find_storage(std::string_view id) const;
  const StorageSpec& storage(std::string_view id) const;
  std::vector<std::string> storage_ids() const;

 private:
  std::map<std::string, GpuSpec, std::less<>> gpus_;
  std::map<std::string, CpuSpec, std::less<>> cpus_;
  std::map<std::string, MemorySpec, std::less<>> memories_;
  std::map<std::string, NicSpec, std::less<>> nics_;
  std::map<std::string, StorageSpec, std::less<>> storages_;
};

}  // namespace simctl
