#pragma once
// Which algorithm and wire protocol run a collective. `automatic` lets the
// runner choose as NCCL's tuner does (collective_choice.hpp); anything else
// is a per-job override.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace simctl {

enum class CollectiveAlgorithm : std::uint8_t {
  automatic,
  ring,              // NCCL Ring: one ring per rail across nodes
  tree,              // NCCL double binary tree (chains inside a node)
  hierarchical,      // reduce-scatter in the node, all-reduce per rail, all-gather in the node
  direct,            // every rank sends to every other at once (all-to-all)
  halving_doubling,  // recursive halving then doubling (Rabenseifner); power-of-two groups
  nvls,              // NVLink SHARP: the NVSwitch reduces and multicasts
  nvls_tree,         // NCCL NVLSTree: NVLink SHARP inside each node, a double binary tree across nodes
  sharp,             // InfiniBand SHARP: in-node reduce-scatter, the fabric switch reduces per rail
  master,            // PyTorch DataParallel: everything through rank 0
};

inline constexpr std::array kAllCollectiveAlgorithms = {
    CollectiveAlgorithm::automatic,    CollectiveAlgorithm::ring,      CollectiveAlgorithm::tree,
    CollectiveAlgorithm::hierarchical, CollectiveAlgorithm::direct,    CollectiveAlgorithm::halving_doubling,
    CollectiveAlgorithm::nvls,         CollectiveAlgorithm::nvls_tree, CollectiveAlgorithm::sharp,
    CollectiveAlgorithm::master,
};

constexpr std::string_view to_string(CollectiveAlgorithm a) {
  switch (a) {
    case CollectiveAlgorithm::automatic: return "auto";
    case CollectiveAlgorithm::ring: return "ring";
    case CollectiveAlgorithm::tree: return "tree";
    case CollectiveAlgorithm::hierarchical: return "hierarchical";
    case CollectiveAlgorithm::direct: return "direct";
    case CollectiveAlgorithm::halving_doubling: return "halving_doubling";
    case CollectiveAlgorithm::nvls: return "nvls";
    case CollectiveAlgorithm::nvls_tree: return "nvls_tree";
    case CollectiveAlgorithm::sharp: return "sharp";
    case CollectiveAlgorithm::master: return "master";
  }
  return "?";
}

constexpr std::optional<CollectiveAlgorithm> collective_algorithm_from_string(std::string_view s) {
  for (CollectiveAlgorithm a : kAllCollectiveAlgorithms) {
    if (to_string(a) == s) return a;
  }
  return std::nullopt;
}

// Every algorithm's name, in kAllCollectiveAlgorithms' order, for messages
// and help that list the valid ones.
inline std::vector<std::string> collective_algorithm_names() {
  std::vector<std::string> names;
  for (CollectiveAlgorithm a : kAllCollectiveAlgorithms) names.emplace_back(to_string(a));
  return names;
}

// NCCL's wire protocols: LL (8-byte lines, half of them flags), LL128
// (128-byte lines, 8 bytes of flag) and Simple (bulk copies, then a fence).
enum class Protocol : std::uint8_t { automatic, ll, ll128, simple };

inline constexpr std::array kWireProtocols = {Protocol::ll, Protocol::ll128, Protocol::simple};

constexpr std::string_view to_string(Protocol p) {
  switch (p) {
    case Protocol::automatic: return "auto";
    case Protocol::ll: return "LL";
    case Protocol::ll128: return "LL128";
    case Protocol::simple: return "Simple";
  }
  return "?";
}

}  // namespace simctl
