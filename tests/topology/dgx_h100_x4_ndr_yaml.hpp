#pragma once
// configs/systems/dgx_h100_x4_ndr.yaml's cluster (4 DGX H100 nodes on a
// rail-optimised NDR fat tree) as system YAML with its fabric's routing named:
// InfiniBand's default is adaptive, and tests of hashed routes need `ecmp`.
#include <string>

namespace simctl::test {

// `repository_root` locates configs/systems/dgx_h100.yaml for the import.
inline std::string dgx_h100_x4_ndr_yaml(const std::string& repository_root, const std::string& routing) {
  return "system:\n  name: 4x DGX H100, NDR rail-optimised fat tree (" + routing +
         ")\n  node_templates:\n    dgx_h100: {import: " + repository_root +
         "/configs/systems/dgx_h100.yaml}\n  nodes:\n    - {template: dgx_h100, count: 4}\n"
         "  fabric: {kind: fat_tree, tiers: 2, radix: 64, oversubscription: 1, rail_optimised: true, "
         "link: infiniband_ndr, nics: \"nic[*]\", routing: " +
         routing + "}\n";
}

}  // namespace simctl::test
