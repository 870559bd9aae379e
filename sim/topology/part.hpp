#pragma once
// A part of a system: one vertex of the system graph. Parts are the things a
// transfer starts at, ends at or passes through (GPU, CPU socket, DRAM, NIC,
// switches, storage).
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

enum class PartKind : std::uint8_t {
  cpu_socket,
  dram,
  gpu,
  nic,
  pcie_switch,
  nvswitch,
  network_switch,
  storage,
};

std::string_view to_string(PartKind kind);
std::optional<PartKind> part_kind_from_string(std::string_view text);
std::vector<std::string> part_kind_names();

// Whether traffic between two other parts may pass through a part of this
// kind. Switches and NICs forward; a CPU socket forwards too, because it
// holds the PCIe root complex (peer traffic between PCIe switches and the
// socket-to-socket link both cross it). GPUs, DRAM and storage never forward:
// a GPU is not a router, and memory/storage are only ever endpoints.
bool can_transit(PartKind kind);

// Whether parts of this kind name a device in the catalogue.
bool has_catalogue_model(PartKind kind);

inline constexpr int kNoNode = -1;

struct Part {
  PartKind kind = PartKind::gpu;
  std::string name;          // unique in the system, e.g. "node0.gpu3"
  std::string model;         // catalogue id; empty for switches
  int node = kNoNode;        // index of the node the part belongs to; kNoNode for system-level parts
  std::string group;         // the part group it was declared in, e.g. "gpu"
  int index = 0;             // its index within that group (local rank for a GPU)
  Bytes capacity_bytes = 0;  // DRAM/storage capacity as configured; 0 when not given
  // GPUs: the fraction of its catalogue speed this unit computes at (a
  // straggler: thermal throttling, a weak part); 1 unless a run says otherwise.
  double compute_speed = 1.0;
  // GPUs: the catalogue's architecture ("hopper", "blackwell"...), which
  // NCCL's per-generation figures are keyed by; empty otherwise.
  std::string architecture = {};
};

}  // namespace simctl
