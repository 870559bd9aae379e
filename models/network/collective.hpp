#pragma once
// Runs collectives as algorithms over point-to-point flows: ring (one ring per
// rail across nodes, open chain for broadcast/reduce), double binary tree,
// hierarchical, direct, halving-doubling, in-switch reduction (NVLS, SHARP)
// and PyTorch DataParallel's master pattern. The algorithm and protocol come
// from the request or, when it says `automatic`, from the tuner
// (collective_choice.hpp).
#include <algorithm>
#include <array>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "models/network/collective_choice.hpp"
#include "models/network/collective_request.hpp"
#include "models/network/collective_topology.hpp"
#include "models/network/collective_tuning.hpp"
#include "models/network/flow_network.hpp"
#include "models/network/rail_router.hpp"
#include "models/network/ring_fast.hpp"
#include "models/network/ring_plan.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/slot_pool.hpp"

namespace simctl {

class CollectiveRunner {
 public:
  // What one group's last collectives were planned as (defined below).
  class Memo;

  CollectiveRunner(Engine& engine, FlowNetwork& network, const Router& router, CollectiveTuning tuning);

  // Facts about the machine for the tuner (nodes, NVSwitch, SHARP). Without
  // them `automatic` runs the ring with Simple.
  void set_topology(CollectiveTopology topology) {
    topology_ = std::move(topology);
    choices_.clear();    // all three depend on the topology
    ++plan_generation_;  // and so do callers' memos
    ring_plans_.clear();
    choice_members_ = ring_plan_members_ = 0;
    ring_tunings_.clear();
  }

  // Starts `request` now; `on_done` runs when every rank has its result,
  // always from a later engine event, never inside this call. The runner,
  // network and router must outlive the collective. Returns the algorithm
  // and protocol it runs with (the tuner's, cached per distinct request),
  // or nothing when it moves no bytes: one member, or zero bytes, completes
  // at once (no launch latency: NCCL returns without a kernel). Throws
  // std::invalid_argument, at the call, when the algorithm cannot run the
  // op on this group.
  std::optional<CollectiveChoice> start(const CollectiveRequest& request, std::function<void()> on_done) {
    return start_at(engine_.now(), request, std::move(on_done));
  }
  // The same, with the last rank arriving at `at` (now or later): the
  // launch latency runs from there.
  std::optional<CollectiveChoice> start_at(TimePs at, const CollectiveRequest& request, std::function<void()> on_done,
                                           Memo* memo = nullptr);

  // NCCL send/recv: one point-to-point transfer after the Simple launch latency.
  void send(EndpointId from, EndpointId to, double bytes, std::function<void()> on_done);

  // What start() would run for `request`.
  CollectiveChoice choice_for(const CollectiveRequest& request) const;

  const CollectiveTuning& tuning() const { return tuning_; }

  // ECMP flow keys handed out so far, and skipping some as if collectives
  // had taken them: a folded replay (sim/exec/replica_fold.hpp) runs a
  // node-local collective for one replica and skips the keys its images
  // would take, so later collectives draw the keys they would draw anyway.
  std::uint64_t flow_keys_taken() const { return next_flow_key_; }
  void skip_flow_keys(std::uint64_t keys) { next_flow_key_ += keys; }

 private:
  using Body = std::function<void(std::function<void()>)>;
  struct Launch {
    TimePs latency = 0;
    Body body;
  };
  // A training step repeats the same collective on the same group thousands
  // of times; the tuner's choice and the ring layout depend on nothing else,
  // so they are worked out once per (op, size, algorithm, protocol, group).
  // Looked up by a view of the request, so a lookup copies no member list.
  template <class Members>
  struct BasicPlanKey {
    CollectiveOp op;
    double bytes;
    CollectiveAlgorithm algorithm;
    Protocol protocol;
    Members members;
  };
  using PlanKey = BasicPlanKey<std::vector<EndpointId>>;
  using PlanKeyView = BasicPlanKey<std::span<const EndpointId>>;
  // Hashed, not ordered: an ordered map's compares took 7 % of a 16,384-GPU
  // replay's profile, and nothing iterates the caches. The hash reads three
  // members (first, middle, last: alike groups differ there); equality reads
  // all of them.
  struct PlanKeyHash {
    using is_transparent = void;
    template <class K>
    std::size_t operator()(const K& k) const {
      std::size_t h = std::hash<double>{}(k.bytes);
      const auto mix = [&h](std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); };
      mix(static_cast<std::size_t>(k.op));
      mix(static_cast<std::size_t>(k.algorithm));
      mix(static_cast<std::size_t>(k.protocol));
      mix(k.members.size());
      if (!k.members.empty()) {
        mix(k.members.front());
        mix(k.members[k.members.size() / 2]);
        mix(k.members.back());
      }
      return h;
    }
  };
  struct PlanKeyEqual {
    using is_transparent = void;
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      return std::tie(a.op, a.bytes, a.algorithm, a.protocol) == std::tie(b.op, b.bytes, b.algorithm, b.protocol) &&
             std::equal(a.members.begin(), a.members.end(), b.members.begin(), b.members.end());
    }
  };
  // A ring plan with the routes of its edges that no flow key changes: those
  // inside a node, and those between nodes where the fabric's routing ignores
  // the key (Router::route_for_every_key); nullptr where ECMP decides.
  struct CachedRing {
    RingPlan plan;  // flow key unset
    std::vector<const Path*> fixed_paths;
  };
  using RingPlans = std::shared_ptr<const std::vector<CachedRing>>;
  static PlanKeyView key_of(const CollectiveRequest& request);
  static PlanKey owned(const PlanKeyView& key);
  ProtocolUse use_of(const CollectiveRequest& request) const;
  const CollectiveTuning& ring_tuning(Protocol protocol, ProtocolUse use);
  void launch_rings(std::uint32_t launch);
  void run_rings(const std::vector<CachedRing>& rings, std::uint64_t first_flow_key, Protocol protocol, ProtocolUse use,
                 std::function<void()> done);
  std::uint64_t take_flow_keys(std::size_t count);
  struct CachedChoice {
    CollectiveChoice choice;
    ProtocolUse use;
  };
  CachedChoice cached_choice(const CollectiveRequest& request);
  RingPlans ring_plans(const CollectiveRequest& request, Protocol protocol);
  static bool is_ring(CollectiveAlgorithm algorithm) {
    return algorithm == CollectiveAlgorithm::automatic || algorithm == CollectiveAlgorithm::ring;
  }

 public:
  // Kept by a caller that calls on a fixed group again and again (the
  // executor, one per group), so that a repeat skips the plan caches'
  // hashing of the member list. Valid only with requests over the members
  // it was first used with.
  class Memo {
    friend class CollectiveRunner;
    struct Entry {
      std::uint64_t generation = 0;  // the runner's plan_generation_; 0: empty
      CollectiveOp op{};
      double bytes = 0.0;
      CollectiveAlgorithm algorithm{};
      Protocol protocol{};
      CachedChoice cached{};
      RingPlans plans;  // where the choice is a ring
    };
    // Two: a layer's calls on one group alternate between two kinds (a
    // tensor-parallel all-gather and reduce-scatter of one size).
    std::array<Entry, 2> entries_;
    std::uint8_t next_ = 0;
  };

 private:
  // cached_choice() and, for a ring, ring_plans(), through `memo` when given.
  std::pair<CachedChoice, RingPlans> planned(const CollectiveRequest& request, Memo* memo);

  Launch prepare(const CollectiveRequest& request, const CollectiveChoice& choice, ProtocolUse use);
  Body ring_body(const CollectiveRequest& request, Protocol protocol, ProtocolUse use);
  Body hierarchical_body(const CollectiveRequest& request, const CollectiveChoice& choice, TimePs relaunch);
  struct HierarchicalPhases {
    std::vector<Launch> scatter, across, gather;
  };
  HierarchicalPhases hierarchical_phases(const CollectiveChoice& choice, const GroupShape& shape, double bytes);
  Body phase_body(std::vector<Launch> parts);
  const CollectiveTopology* topology() const { return topology_ ? &*topology_ : nullptr; }

  Engine& engine_;
  FlowNetwork& network_;
  const Router& router_;
  CollectiveTuning tuning_;
  std::optional<CollectiveTopology> topology_;
  std::uint64_t plan_generation_ = 1;           // bumped when the caches are emptied for a new topology
  RailRouter rail_router_{router_, topology_};  // what every algorithm routes with
  std::uint64_t next_flow_key_ = 0;             // spreads successive collectives over ECMP paths
  std::unordered_map<PlanKey, CachedChoice, PlanKeyHash, PlanKeyEqual> choices_;
  std::unordered_map<PlanKey, RingPlans, PlanKeyHash, PlanKeyEqual> ring_plans_;
  std::size_t choice_members_ = 0;  // members over choices_' keys (plan_cache_full)
  std::size_t ring_plan_members_ = 0;
  // The ring's figures by protocol and use; a handful of entries.
  std::map<std::tuple<Protocol, bool, double>, CollectiveTuning> ring_tunings_;
  FastRingRunner fast_rings_{engine_, network_, rail_router_};
  // Rings launched and waiting out their launch latency; pooled, so the
  // launch event carries an index, not a closure.
  struct RingLaunch {
    RingPlans plans;
    std::uint64_t first_flow_key = 0;
    Protocol protocol = Protocol::simple;
    ProtocolUse use;
    std::function<void()> on_done;
  };
  SlotPool<RingLaunch> ring_launches_;
};

// nccl-tests bus bandwidth in bytes/s for a collective of `bytes` that took `elapsed`.
double bus_bandwidth_bytes_per_s(CollectiveOp op, int ranks, double bytes, TimePs elapsed);

}  // namespace simctl
