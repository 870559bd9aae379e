#include "sim/topology/part.hpp"

#include <array>
#include <utility>

namespace simctl {
namespace {

constexpr std::array<std::pair<PartKind, std::string_view>, 8> kNames{{
    {PartKind::cpu_socket, "cpu_socket"},
    {PartKind::dram, "dram"},
    {PartKind::gpu, "gpu"},
    {PartKind::nic, "nic"},
    {PartKind::pcie_switch, "pcie_switch"},
    {PartKind::nvswitch, "nvswitch"},
    {PartKind::network_switch, "network_switch"},
    {PartKind::storage, "storage"},
}};

}  // namespace

std::string_view to_string(PartKind kind) {
  for (const auto& [k, name] : kNames) {
    if (k == kind) return name;
  }
  return "unknown";
}

std::optional<PartKind> part_kind_from_string(std::string_view text) {
  for (const auto& [k, name] : kNames) {
    if (name == text) return k;
  }
  return std::nullopt;
}

std::vector<std::string> part_kind_names() {
  std::vector<std::string> out;
  for (const auto& entry : kNames) out.emplace_back(entry.second);
  return out;
}

bool can_transit(PartKind kind) {
  switch (kind) {
    case PartKind::gpu:
    case PartKind::dram:
    case PartKind::storage: return false;
    default: return true;
  }
}

bool has_catalogue_model(PartKind kind) {
  switch (kind) {
    case PartKind::pcie_switch:
    case PartKind::nvswitch:
    case PartKind::network_switch: return false;
    default: return true;
  }
}

}  // namespace simctl
