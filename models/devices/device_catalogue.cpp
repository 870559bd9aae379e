#include "models/devices/device_catalogue.hpp"

#include <algorithm>
#include <filesystem>
#include <stdexcept>

#include "models/devices/catalogue_parsers.hpp"
#include "sim/config/data_root.hpp"

namespace simctl {
namespace {

// Ids are used as keys in system configs; lower-case with dashes keeps them
// unambiguous to type.
void check_id(const ConfigNode& entry, const std::string& id) {
  bool ok = !id.empty() && std::all_of(id.begin(), id.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '_';
  });
  if (!ok) entry.fail("id '" + id + "' must be lower-case letters, digits, '-' or '_'");
}

template <typename Spec, typename Parse>
void add_section(const ConfigNode& section, std::map<std::string, Spec, std::less<>>& into, Parse parse) {
  for (const auto& [id, entry] : section.entries()) {
    check_id(entry, id);
    if (into.count(id) != 0) entry.fail("duplicate id '" + id + "'; each catalogue id must be unique");
    into.emplace(id, parse(id, entry));
  }
}

template <typename Spec>
const Spec* find_in(const std::map<std::string, Spec, std::less<>>& specs, std::string_view id) {
  auto it = specs.find(id);
  return it == specs.end() ? nullptr : &it->second;
}

template <typename Spec>
std::vector<std::string> ids_of(const std::map<std::string, Spec, std::less<>>& specs) {
  std::vector<std::string> ids;
  for (const auto& [id, spec] : specs) ids.push_back(id);
  return ids;
}

template <typename Spec>
const Spec& get_in(const std::map<std::string, Spec, std::less<>>& specs, std::string_view id, const char* what) {
  if (const Spec* spec = find_in(specs, id)) return *spec;
  throw std::out_of_range("unknown " + std::string(what) + " '" + std::string(id) + "'; the catalogue has " +
                          join_choices(ids_of(specs)));
}

}  // namespace

std::string DeviceCatalogue::default_directory() { return data_root() + "/models/devices/catalogue"; }

DeviceCatalogue DeviceCatalogue::load(const std::string& directory) {
  namespace fs = std::filesystem;
  std::error_code ec;
  if (!fs::is_directory(directory, ec))
    throw ConfigError({directory, 0, 0}, "", "device catalogue directory does not exist");
  std::vector<std::string> files;
  for (const auto& item : fs::directory_iterator(directory)) {
    if (item.is_regular_file() && item.path().extension() == ".yaml") files.push_back(item.path().string());
  }
  std::sort(files.begin(), files.end());  // deterministic, whatever the file system's order
  DeviceCatalogue catalogue;
  for (const auto& file : files) catalogue.add(ConfigNode::load_file(file));
  return catalogue;
}

DeviceCatalogue DeviceCatalogue::from_yaml(const std::string& text, const std::string& file_label) {
  DeviceCatalogue catalogue;
  catalogue.add(ConfigNode::load_string(text, file_label));
  return catalogue;
}

void DeviceCatalogue::add(const ConfigNode& root) {
  root.expect_keys({"gpus", "cpus", "memory", "nics", "storage"});
  if (auto s = root.optional_child("gpus")) {
    add_section(*s, gpus_, parse_gpu);
    for (const auto& [id, entry] : s->entries()) {
      GpuSpec& gpu = gpus_.find(id)->second;
      if (!gpu.compute.die_part.empty()) resolve_same_die(entry, gpu, find_in(gpus_, gpu.compute.die_part));
    }
  }
  if (auto s = root.optional_child("cpus")) add_section(*s, cpus_, parse_cpu);
  if (auto s = root.optional_child("memory")) add_section(*s, memories_, parse_memory);
  if (auto s = root.optional_child("nics")) add_section(*s, nics_, parse_nic);
  if (auto s = root.optional_child("storage")) add_section(*s, storages_, parse_storage);
}

void DeviceCatalogue::add_gpu(const GpuSpec& gpu) { gpus_.insert_or_assign(gpu.id, gpu); }

const GpuSpec* DeviceCatalogue::find_gpu(std::string_view id) const { return find_in(gpus_, id); }
const GpuSpec& DeviceCatalogue::gpu(std::string_view id) const { return get_in(gpus_, id, "GPU"); }
std::vector<std::string> DeviceCatalogue::gpu_ids() const { return ids_of(gpus_); }

const CpuSpec* DeviceCatalogue::find_cpu(std::string_view id) const { return find_in(cpus_, id); }
const CpuSpec& DeviceCatalogue::cpu(std::string_view id) const { return get_in(cpus_, id, "CPU"); }
std::vector<std::string> DeviceCatalogue::cpu_ids() const { return ids_of(cpus_); }

const MemorySpec* DeviceCatalogue::find_memory(std::string_view id) const { return find_in(memories_, id); }
const MemorySpec& DeviceCatalogue::memory(std::string_view id) const { return get_in(memories_, id, "memory"); }
std::vector<std::string> DeviceCatalogue::memory_ids() const { return ids_of(memories_); }

const NicSpec* DeviceCatalogue::find_nic(std::string_view id) const { return find_in(nics_, id); }
const NicSpec& DeviceCatalogue::nic(std::string_view id) const { return get_in(nics_, id, "NIC"); }
std::vector<std::string> DeviceCatalogue::nic_ids() const { return ids_of(nics_); }

const StorageSpec* DeviceCatalogue::find_storage(std::string_view id) const { return find_in(storages_, id); }
const StorageSpec& DeviceCatalogue::storage(std::string_view id) const { return get_in(storages_, id, "storage"); }
std::vector<std::string> DeviceCatalogue::storage_ids() const { return ids_of(storages_); }

}  // namespace simctl
