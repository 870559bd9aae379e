#pragma once
// How one link declaration between two lists of parts becomes cables.
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "models/network/path.hpp"

namespace simctl {

enum class Pairing {
  automatic,    // one_to_one if the lists are equally long, else block
  one_to_one,   // a[i] - b[i]; equal lengths
  block,        // longer side split into consecutive blocks, one per part of the
                // shorter side: gpu[0..7] with pcie_switch[0..3] gives gpu0,gpu1 -> sw0 ...
                // (a single part on one side is the one-block case: a star)
  round_robin,  // longer[i] - shorter[i % shorter]: rails, e.g. every node's nic[r] -> leaf[r]
  all_to_all,   // every a with every b: leaf-spine
  mesh,         // every pair of one group's parts, once: an xGMI or NVLink full mesh
};

inline constexpr std::string_view kPairingNames = "one_to_one, block, round_robin, all_to_all or mesh";
std::optional<Pairing> pairing_from_string(std::string_view text);

// Throws std::invalid_argument saying why the lists cannot be paired.
std::vector<std::pair<EndpointId, EndpointId>> pair_parts(const std::vector<EndpointId>& a,
                                                          const std::vector<EndpointId>& b, Pairing pairing);

}  // namespace simctl
