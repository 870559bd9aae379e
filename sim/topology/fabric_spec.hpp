#pragma once
// The `fabric:` section of a system config: a network between nodes given
// as a few numbers and generated into switches and cables (fat_tree.hpp).
//
//   fabric:
//     kind: fat_tree            # the only kind so far
//     tiers: 2                  # 1 (one switch), 2 (leaf-spine) or 3 (leaf-spine-core)
//     radix: 64                 # ports per switch (Quantum-2 NDR: 64)
//     oversubscription: 1       # leaf downlink : uplink bandwidth, >= 1 (default 1)
//     rail_optimised: true      # NIC i of every node on the leaves of rail i (default false)
//     link: infiniband_ndr      # link kind of every fabric cable
//     bandwidth: 400 Gb/s       # optional override, per direction
//     latency: 300 ns           # optional override, per hop
//     nics: "nic[*]"            # which parts of each node join the fabric (default "nic")
//     routing: ecmp             # or static: by destination, as InfiniBand's D-mod-k tables (routing.hpp),
//                               # or adaptive: spread evenly over each tier's links (fabric_bundles.hpp)
//     qps_per_connection: 16    # queue pairs per connection under ECMP (default 1, NCCL's)
//     ecmp_hash: queue_pair     # or connection: what ECMP hashes (routing.hpp, QueuePairs)
#include "models/network/link_kinds.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/part_selector.hpp"
#include "sim/topology/routing.hpp"

namespace simctl {

struct FabricSpec {
  int tiers;
  int radix;
  double oversubscription;
  bool rail_optimised;
  LinkSpec link;
  PartSelector nics;
  FabricRouting routing;
  QueuePairs queue_pairs;
  ConfigNode where;  // the `fabric:` mapping, for errors found while generating
};

// Checks every field (ConfigError at the field on any bad value).
FabricSpec parse_fabric(const ConfigNode& node, const LinkKindTable& link_kinds);

}  // namespace simctl
