#pragma once
// Ideal adaptive routing (`fabric: {routing: adaptive}`): a generated fat
// tree whose switches keep every uplink of a tier equally loaded, as
// InfiniBand's adaptive routing and packet spraying aim to. Under an even
// spread, a flow from leaf A to leaf B puts 1/u of its rate on each of A's u
// uplinks, and whatever reaches B arrives evenly over B's downlinks; so the
// only constraints are sums: all flows leaving A within A's uplinks' total,
// all flows arriving at B within B's downlinks', and (three tiers) all flows
// leaving or entering a pod within its spines' core links. Each such pool is
// one *bundle*: a link of the flow network whose capacity is its members'
// sum. A route between leaves then crosses leaf A's up bundle, [pod P's up
// and pod Q's down bundles,] leaf B's down bundle, and no flow collides with
// another on a hashed uplink. The report spreads a bundle's bytes evenly
// over its member cables, as the spray does.
//
// Exact for the even spread where a pool's members have equal rates (a
// generated fabric's do); a real adaptive router reacts to queues with some
// delay and may do a little worse. Bundles are flow-network links numbered
// after the cables' (System::link_spec and friends take either).
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "models/network/link_kinds.hpp"
#include "models/network/path.hpp"

namespace simctl {

struct LinkBundle {
  std::string name;             // "leaf3 uplinks"
  std::vector<LinkId> members;  // the directed cable links it pools
  LinkSpec spec;                // the members' kind, efficiency and hop latency; their bandwidth summed
  EndpointId source = 0;        // a member's ends, for names and tiers
  EndpointId target = 0;
  // Its rate is at least all the links feeding it can carry (a non-blocking
  // tier), so it can never limit a flow: the flow network only counts what
  // crosses it (FlowNetwork::count_only), which keeps the flows of a whole
  // pod from joining one component to re-share on every start and drain.
  bool never_binding = false;
};

class FabricBundles {
 public:
  static constexpr std::uint32_t kNone = UINT32_MAX;

  std::uint32_t add(LinkBundle bundle);
  // A leaf's pools and its pod (0 for a two-tier fabric).
  void set_leaf(EndpointId leaf, std::uint32_t up, std::uint32_t down, std::uint32_t pod);
  // A pod's pools toward and from the cores (three tiers only).
  void set_pod(std::uint32_t pod, std::uint32_t up, std::uint32_t down);

  bool empty() const { return bundles_.empty(); }
  std::size_t size() const { return bundles_.size(); }
  const LinkBundle& operator[](std::size_t i) const { return bundles_[i]; }
  const std::vector<LinkBundle>& all() const { return bundles_; }

  // The bundles a route crosses from leaf `from` to leaf `to`, in order;
  // nothing when either is not a leaf of the generated fabric, or their pods
  // have no pools between them.
  std::optional<std::vector<std::uint32_t>> between(EndpointId from, EndpointId to) const;

 private:
  struct Leaf {
    std::uint32_t up, down, pod;
  };
  struct Pod {
    std::uint32_t up = kNone, down = kNone;
  };
  std::vector<LinkBundle> bundles_;
  std::unordered_map<EndpointId, Leaf> leaves_;
  std::vector<Pod> pods_;
};

}  // namespace simctl
