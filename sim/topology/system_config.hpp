#pragma once
// Reads a system from YAML. Schema (every field checked; unknown ones refused):
//
//   system:
//     name: DGX H100                       # required
//     node_templates:                      # optional: machines stamped out by `nodes`
//       <template>:
//         parts:                           # groups of parts, in rank order
//           <group>: {kind: <part kind>, model: <catalogue id>, count: <n, default 1>,
//                     capacity: <size, dram/storage only>}
//         links:
//           - between: [<selector>, <selector>]   # selectors: gpu, "gpu[3]", "gpu[0..3]", "gpu[*]"
//             kind: <link kind>                   # defaults come from link_kinds.yaml
//             bandwidth: 450 GB/s                 # optional override, per direction
//             latency: 150 ns                     # optional override, per hop
//             pairing: block                      # optional; see pairing.hpp
//     nodes:                               # optional: [{template: <template>, count: <n>}]
//     parts: ...                           # optional: system-level parts (e.g. network switches)
//     links: ...                           # optional: system-level links; selectors may name
//                                          #   parts inside nodes: "node[*].nic[0]"
//
// Parts are named "node<i>.<group><j>" (no <j> when the group has one part);
// system-level parts "<group><j>". Nodes are numbered in the order listed.
#include <string>

#include "models/devices/device_catalogue.hpp"
#include "models/network/link_kinds.hpp"
#include "sim/config/config_node.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

// `system_node` is the mapping under the `system:` key. Throws ConfigError
// (file:line:col, field, what is valid) on any bad input, including a GPU
// that cannot reach the other GPUs or any CPU socket.
System load_system(const ConfigNode& system_node, const DeviceCatalogue& catalogue, const LinkKindTable& link_kinds);

// Reads a file whose top level is `system:`.
System load_system_file(const std::string& path, const DeviceCatalogue& catalogue, const LinkKindTable& link_kinds);

}  // namespace simctl
