#pragma once
// What the collective tuner needs to know about the machine, beyond routes:
// which node each GPU sits in, whether an NVSwitch can reduce in the switch,
// whether the fabric can (SHARP), and the per-GPU rates inside and between
// nodes. Filled from a System by system_collective_topology.hpp; a runner
// without it runs the ring (it cannot tell an NVSwitch from a PCIe tree).
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "models/network/path.hpp"
#include "models/network/reduction_tree.hpp"

namespace simctl {

struct MemberPlace {
  int node = 0;
  std::optional<EndpointId> nvswitch;  // the switch its NVLinks reach, if any
  std::string model;                   // the GPU's catalogue id
  std::string architecture;            // its catalogue architecture ("hopper", "blackwell"...)
  double port_bytes_per_s = 0.0;       // its effective rate to that switch; 0 without one
  bool nvls = false;                   // that switch reduces and multicasts for it (NVLink4 and later)
  // A full mesh (MI300X's xGMI): the effective rate of its direct link to
  // each other GPU of its node (the slowest, if they differ); 0 unless it
  // has one to every one of them.
  double mesh_link_bytes_per_s = 0.0;
  // Its direct links to other GPUs of its node, with no switch between
  // (xGMI, NVLink without an NVSwitch): the peer and the link's effective
  // rate, one entry per link. Empty where it reaches its peers through a switch.
  std::vector<std::pair<EndpointId, double>> direct_links;
};

struct CollectiveTopology {
  bool nvls = false;               // NVSwitches reduce and multicast (NVLink4 and later)
  bool sharp = false;              // network switches reduce (InfiniBand SHARP)
  int ctas = 0;                    // the job's NCCL CTA (channel) count; 0: NCCL's default
  double intra_bytes_per_s = 0.0;  // one GPU's effective rate into its node's fabric
  double inter_bytes_per_s = 0.0;  // one GPU's effective share of its NIC
  TimePs intra_hop_latency = 0;
  TimePs inter_path_latency = 0;
  // The switches that reduce for a group of GPUs in different nodes (SHARP):
  // rooted at the one nearest to all of them, each member under the first
  // switch on its way there. Empty when the fabric has none.
  std::function<std::optional<ReductionTree>(const std::vector<EndpointId>&)> reduction_tree;

  // Looked up for every transfer a collective routes, so indexed by endpoint.
  const MemberPlace* place(EndpointId gpu) const {
    return gpu < places_.size() && places_[gpu] ? &*places_[gpu] : nullptr;
  }
  void set_place(EndpointId gpu, MemberPlace place) {
    if (places_.size() <= gpu) places_.resize(gpu + 1);
    places_[gpu] = std::move(place);
  }

 private:
  std::vector<std::optional<MemberPlace>> places_;  // by endpoint; empty for non-GPUs
};

}  // namespace simctl
