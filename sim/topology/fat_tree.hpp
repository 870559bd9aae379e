#pragma once
// Generates a fat-tree fabric (fabric_spec.hpp) into a System: network
// switches named leaf<i>, spine<i>, core<i>, and the cables between them and
// every node's NICs.
//
// Shape:
//  - Leaves. With oversubscription r, a leaf of radix k gives
//    d = floor(k*r/(r+1)) ports to NICs (k/2 when r = 1) and the rest to
//    uplinks. NICs are spread evenly over the fewest leaves that hold them:
//    rail-optimised, rail i (NIC i of every node) gets leaves of its own;
//    otherwise NICs fill leaves in node order, so a leaf holds whole nodes.
//  - Oversubscription takes uplinks away, it does not thin them: a leaf with
//    m NICs gets ceil(m/r) uplinks of the fabric's full rate, one to each of
//    spines 0..ceil(m/r)-1. So a leaf's uplink bandwidth is its NICs'
//    downlink bandwidth divided by r (rounded up to whole cables), as in
//    real fabrics, where 2:1 means half the uplink ports are cabled.
//  - 2 tiers: each spine has one port per leaf, so at most k leaves.
//  - 3 tiers: leaves form pods of k/2; each pod has its own spines (half
//    their ports down, half up, so no oversubscription above the leaves);
//    pod spine s has one uplink per leaf it serves, to the cores of group s.
//    At most k pods (one core port per pod).
//  - A fabric that fits on one leaf gets no spines; one pod gets no cores.
// A NIC's cable runs at the lower of the fabric's rate and the NIC's port
// rate (an HDR NIC on an NDR leaf links at HDR).
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "sim/topology/fabric_spec.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

// A fabric the radix cannot build, or a bad combination; `field` names the
// fabric field to point the user at.
struct FabricError : std::invalid_argument {
  FabricError(std::string field_name, const std::string& message)
      : std::invalid_argument(message), field(std::move(field_name)) {}
  std::string field;
};

// Leaf ports given to NICs (the rest are uplinks).
int leaf_down_ports(int radix, double oversubscription, int tiers);
// Uplinks of a leaf holding `nics` NICs.
int leaf_uplinks(int nics, double oversubscription);
// NICs per leaf, in leaf order: rail-optimised or not (see above).
std::vector<std::vector<EndpointId>> assign_leaves(const std::vector<std::vector<EndpointId>>& nics_by_node,
                                                   bool rail_optimised, int down_ports);

// Adds the switches and cables. `nic_rate` gives a NIC's port rate.
// Throws FabricError when the radix is too small for the NICs.
void build_fat_tree(System& system, const FabricSpec& spec, const std::vector<std::vector<EndpointId>>& nics_by_node,
                    const std::function<Bandwidth(EndpointId)>& nic_rate);

}  // namespace simctl
