#pragma once
// The kinds of physical link simctl knows. Their figures (bandwidth, latency,
// efficiency) are data in link_kinds.yaml, not code; this file only names them.
#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace simctl {

enum class LinkKind : std::uint8_t {
  pcie_gen3_x16,
  pcie_gen4_x16,
  pcie_gen5_x16,
  pcie_gen6_x16,
  nvlink3,
  nvlink4,
  nvlink5,
  nvlink_c2c,
  infiniband_hdr,
  infiniband_ndr,
  infiniband_xdr,
  ethernet,
  memory_bus,
  upi,   // Intel Ultra Path Interconnect, socket to socket
  xgmi,  // AMD Infinity Fabric (xGMI), socket to socket
  nvlink2,
  infiniband_edr,
};

// Listing order (errors, docs): each family from slow to fast. The enum's
// values only index tables; nvlink2 and infiniband_edr came last.
inline constexpr std::array kAllLinkKinds = {
    LinkKind::pcie_gen3_x16,  LinkKind::pcie_gen4_x16,  LinkKind::pcie_gen5_x16,  LinkKind::pcie_gen6_x16,
    LinkKind::nvlink2,        LinkKind::nvlink3,        LinkKind::nvlink4,        LinkKind::nvlink5,
    LinkKind::nvlink_c2c,     LinkKind::infiniband_edr, LinkKind::infiniband_hdr, LinkKind::infiniband_ndr,
    LinkKind::infiniband_xdr, LinkKind::ethernet,       LinkKind::memory_bus,     LinkKind::upi,
    LinkKind::xgmi,
};

constexpr std::string_view to_string(LinkKind kind) {
  switch (kind) {
    case LinkKind::pcie_gen3_x16: return "pcie_gen3_x16";
    case LinkKind::pcie_gen4_x16: return "pcie_gen4_x16";
    case LinkKind::pcie_gen5_x16: return "pcie_gen5_x16";
    case LinkKind::pcie_gen6_x16: return "pcie_gen6_x16";
    case LinkKind::nvlink3: return "nvlink3";
    case LinkKind::nvlink4: return "nvlink4";
    case LinkKind::nvlink5: return "nvlink5";
    case LinkKind::nvlink_c2c: return "nvlink_c2c";
    case LinkKind::infiniband_hdr: return "infiniband_hdr";
    case LinkKind::infiniband_ndr: return "infiniband_ndr";
    case LinkKind::infiniband_xdr: return "infiniband_xdr";
    case LinkKind::ethernet: return "ethernet";
    case LinkKind::memory_bus: return "memory_bus";
    case LinkKind::upi: return "upi";
    case LinkKind::xgmi: return "xgmi";
    case LinkKind::nvlink2: return "nvlink2";
    case LinkKind::infiniband_edr: return "infiniband_edr";
  }
  return "?";
}

constexpr std::optional<LinkKind> link_kind_from_string(std::string_view s) {
  for (LinkKind kind : kAllLinkKinds) {
    if (to_string(kind) == s) return kind;
  }
  return std::nullopt;
}

}  // namespace simctl
