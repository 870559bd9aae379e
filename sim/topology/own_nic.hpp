#pragma once
// The NIC a GPU's traffic to other nodes leaves and arrives by. NCCL binds
// each GPU to one of its nearest NICs (ncclTopoGetLocalNet: where GPUs share
// a PCIe switch with several NICs, as on a DGX A100, GPU i takes NIC i of
// the switch by device index), and the fabric delivers to that NIC: a flow
// never enters a node through another GPU's NIC and crosses its PCIe switch.
// Least-cost routing alone would treat every nearest NIC as equal and hash
// flows over them, putting two GPUs' rings on one NIC while another idles.
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/topology/route_graph.hpp"

namespace simctl {

struct OwnNic {
  EndpointId nic = 0;
  EndpointId fabric = 0;              // the NIC's one neighbour outside its node (a leaf switch)
  std::uint32_t fabric_cable = 0;     // the cable from the NIC to it
  std::vector<std::uint32_t> cables;  // GPU to NIC inside the node, in order
};

// Nothing when `gpu` is not a GPU inside a node, its node has no NIC it
// reaches, or its NIC has no single fabric port.
std::optional<OwnNic> find_own_nic(const RouteGraph& graph, const SystemGraph& parts, EndpointId gpu);

}  // namespace simctl
