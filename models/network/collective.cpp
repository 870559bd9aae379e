#include "models/network/collective.hpp"

#include <limits>
#include <memory>
#include <stdexcept>

#include "models/network/collective_choice.hpp"
#include "models/network/collective_group.hpp"
#include "models/network/collective_plans.hpp"
#include "models/network/mesh_rings.hpp"
#include "models/network/nvls_tree_plan.hpp"
#include "models/network/pipelined_run.hpp"
#include "models/network/ring_plan.hpp"
#include "models/network/ring_run.hpp"
#include "models/network/stage_pipeline.hpp"

namespace simctl {

namespace {

constexpr std::uint64_t kFlowKeyStride = std::uint64_t{1} << 32;

// Calls `done` after `count` calls of the returned callback.
std::function<void()> join(std::size_t count, std::function<void()> done) {
  auto left = std::make_shared<std::size_t>(count);
  auto shared_done = std::make_shared<std::function<void()>>(std::move(done));
  return [left, shared_done] {
    if (--*left == 0) (*shared_done)();
  };
}

// Where each ring enters and crosses one node: local ranks e + offsets[j]
// (mod m), the ring leaving where offsets ends, `step` past its entry.
struct NodeCrossing {
  std::vector<int> offsets;
  int step = 0;
};

// NCCL's rings across nodes: one per local rank. Ring c enters node k at
// local rank (c - k) mod m and leaves from the one before it, which is where
// it enters node k+1: every network hop stays on one rail (as NCCL's graph
// search arranges, NET/i in and out), and each NIC carries one ring each way.
NodeCrossing nccl_crossing(int m) {
  NodeCrossing crossing{{}, m - 1};
  for (int j = 0; j < m; ++j) crossing.offsets.push_back(j);
  return crossing;
}

// On nodes that are full meshes of RCCL GPUs the rings' paths through a
// node share no link (mesh_rings.hpp, mesh_path_offsets). Ring c still
// leaves each node on the rail it enters the next by; with an odd number of
// nodes its closing hop changes rail.
NodeCrossing rccl_mesh_crossing(int m) {
  NodeCrossing crossing{mesh_path_offsets(m), 0};
  crossing.step = crossing.offsets.back();
  return crossing;
}

std::vector<std::vector<EndpointId>> ring_orders(const CollectiveRequest& r, const GroupShape& shape,
                                                 const CollectiveTopology* topology) {
  if (is_ring_op(r.op) && rccl_mesh_link_rate(shape, topology) > 0.0) return mesh_rings(r.members);
  if (is_ring_op(r.op)) {
    if (DirectLinkRings direct = direct_link_rings(r.members, shape, topology); !direct.rings.empty())
      return std::move(direct.rings);
  }
  if (shape.node_count() <= 1 || !shape.uniform || !is_ring_op(r.op)) return {r.members};
  const int m = shape.per_node();
  const bool mesh = rccl_mesh_nodes_link_rate(shape, topology) > 0.0 && !mesh_path_offsets(m).empty();
  const NodeCrossing crossing = mesh ? rccl_mesh_crossing(m) : nccl_crossing(m);
  std::vector<std::vector<EndpointId>> orders(static_cast<std::size_t>(m));
  for (int c = 0; c < m; ++c) {
    int entry = c;
    for (int k = 0; k < shape.node_count(); ++k) {
      const auto& node = shape.nodes[static_cast<std::size_t>(k)];
      for (int offset : crossing.offsets) {
        orders[static_cast<std::size_t>(c)].push_back(node[static_cast<std::size_t>((entry + offset) % m)]);
      }
      entry = (entry + crossing.step) % m;
    }
  }
  return orders;
}

// The ring runs with its protocol's efficiency and NVLink step latency.
CollectiveTuning ring_tuning_for(const CollectiveTuning& tuning, const ProtocolTuning& p) {
  CollectiveTuning ring_tuning = tuning;
  ring_tuning.protocol_efficiency = p.efficiency;
  ring_tuning.step_latency = p.nvlink_step_latency;
  return ring_tuning;
}

}  // namespace

CollectiveRunner::CollectiveRunner(Engine& engine, FlowNetwork& network, const Router& router, CollectiveTuning tuning)
    : engine_(engine), network_(network), router_(router), tuning_(tuning) {}

CollectiveChoice CollectiveRunner::choice_for(const CollectiveRequest& request) const {
  return choose_collective(request, topology(), tuning_);
}

namespace plan_cache_detail {

// Bounds the plan caches: a trace with endlessly varied sizes re-plans
// rather than growing without limit. By entries and by the members they
// hold (a plan costs some 50 bytes a member). A folded run's images are
// groups of their own: GPT-3 175B on 11,616 GPUs (242 replicas folded)
// overflowed 4,096 entries, emptied the caches over and over and re-planned,
// which took a quarter of its replay (33.2 against 24.9 CPU s at 65,536).
constexpr std::size_t kMaxCachedPlans = 65536;
constexpr std::size_t kMaxCachedMembers = std::size_t{1} << 22;

// Whether a cache holding `entries` keys of `members` members in all must
// be emptied before a key of `adding` members joins it.
bool plan_cache_full(std::size_t entries, std::size_t members, std::size_t adding) {
  return entries >= kMaxCachedPlans || members + adding > kMaxCachedMembers;
}

}  // namespace plan_cache_detail

CollectiveRunner::PlanKeyView CollectiveRunner::key_of(const CollectiveRequest& request) {
  return {request.op, request.bytes, request.algorithm, request.protocol, request.members};
}

CollectiveRunner::PlanKey CollectiveRunner::owned(const PlanKeyView& key) {
  return {key.op, key.bytes, key.algorithm, key.protocol, {key.members.begin(), key.members.end()}};
}

CollectiveRunner::CachedChoice CollectiveRunner::cached_choice(const CollectiveRequest& request) {
  const PlanKeyView key = key_of(request);
  if (auto it = choices_.find(key); it != choices_.end()) return it->second;
  const CachedChoice cached{choice_for(request), use_of(request)};
  if (plan_cache_detail::plan_cache_full(choices_.size(), choice_members_, key.members.size())) {
    choices_.clear();
    choice_members_ = 0;
  }
  choice_members_ += key.members.size();
  choices_.emplace(owned(key), cached);
  return cached;
}

ProtocolUse CollectiveRunner::use_of(const CollectiveRequest& request) const {
  return protocol_use(request, shape_of(request.members, topology()), topology(), tuning_);
}

const CollectiveTuning& CollectiveRunner::ring_tuning(Protocol protocol, ProtocolUse use) {
  const auto key = std::make_tuple(protocol, use.ll_quarter, use.share_cap);
  auto it = ring_tunings_.find(key);
  if (it == ring_tunings_.end()) {
    it = ring_tunings_.emplace(key, ring_tuning_for(tuning_, tuning_.protocol(protocol, use))).first;
  }
  return it->second;
}

std::pair<CollectiveRunner::CachedChoice, CollectiveRunner::RingPlans> CollectiveRunner::planned(
    const CollectiveRequest& request, Memo* memo) {
  if (memo) {
    for (const Memo::Entry& e : memo->entries_) {
      if (e.generation == plan_generation_ && e.op == request.op && e.bytes == request.bytes &&
          e.algorithm == request.algorithm && e.protocol == request.protocol) {
        return {e.cached, e.plans};
      }
    }
  }
  const CachedChoice cached = cached_choice(request);
  RingPlans plans = is_ring(cached.choice.algorithm) ? ring_plans(request, cached.choice.protocol) : nullptr;
  if (memo) {
    memo->entries_[memo->next_] =
        Memo::Entry{plan_generation_, request.op, request.bytes, request.algorithm, request.protocol, cached, plans};
    memo->next_ = static_cast<std::uint8_t>((memo->next_ + 1) % memo->entries_.size());
  }
  return {cached, std::move(plans)};
}

std::optional<CollectiveChoice> CollectiveRunner::start_at(TimePs at, const CollectiveRequest& request,
                                                           std::function<void()> on_done, Memo* memo) {
  if (request.members.size() <= 1 || !(request.bytes > 0.0)) {
    engine_.schedule_at(at, std::move(on_done));
    return std::nullopt;
  }
  auto [cached, plans] = planned(request, memo);
  const auto [choice, use] = cached;
  // Rings, the common case, wait out their launch in a pooled slot rather
  // than in a composed closure.
  if (is_ring(choice.algorithm)) {
    const std::uint32_t launch = ring_launches_.acquire();
    const std::uint64_t first_flow_key = take_flow_keys(plans->size());
    ring_launches_[launch] = RingLaunch{std::move(plans), first_flow_key, choice.protocol, use, std::move(on_done)};
    engine_.schedule_at(at + tuning_.protocol(choice.protocol, use).launch_latency,
                        [this, launch] { launch_rings(launch); });
    return choice;
  }
  // Plan now so that an unsupported request fails at the call, not inside the loop.
  Launch launch = prepare(request, choice, use);
  engine_.schedule_at(at + launch.latency,
                      [body = std::move(launch.body), done = std::move(on_done)]() mutable { body(std::move(done)); });
  return choice;
}

void CollectiveRunner::launch_rings(std::uint32_t launch) {
  RingLaunch& slot = ring_launches_[launch];
  const RingPlans plans = std::move(slot.plans);
  std::function<void()> done = std::move(slot.on_done);
  const std::uint64_t first_flow_key = slot.first_flow_key;
  const Protocol protocol = slot.protocol;
  const ProtocolUse use = slot.use;
  ring_launches_.release(launch);
  run_rings(*plans, first_flow_key, protocol, use, std::move(done));
}

// A collective's rings (one per rail across nodes) start as one flow batch,
// each on the fast path where its plan allows, else step by step.
void CollectiveRunner::run_rings(const std::vector<CachedRing>& rings, std::uint64_t first_flow_key, Protocol protocol,
                                 ProtocolUse use, std::function<void()> done) {
  const CollectiveTuning& tuning = ring_tuning(protocol, use);
  auto each = rings.size() == 1 ? std::move(done) : join(rings.size(), std::move(done));
  network_.begin_batch();
  for (std::size_t i = 0; i < rings.size(); ++i) {
    const std::uint64_t flow_key = first_flow_key + i * kFlowKeyStride;
    if (rings[i].plan.sends.empty()) {
      fast_rings_.run(tuning, rings[i].plan, flow_key, rings[i].fixed_paths, each);
    } else {
      RingPlan own = rings[i].plan;  // the step-by-step run consumes its plan
      own.flow_key = flow_key;
      run_ring(RingContext{engine_, network_, rail_router_, tuning}, std::move(own), each);
    }
  }
  network_.end_batch();
}

// Each launch takes fresh flow keys, so successive collectives still spread
// over ECMP paths as they did when every launch planned from scratch.
std::uint64_t CollectiveRunner::take_flow_keys(std::size_t count) {
  const std::uint64_t first = next_flow_key_;
  next_flow_key_ += kFlowKeyStride * count;
  return first;
}

void CollectiveRunner::send(EndpointId from, EndpointId to, double bytes, std::function<void()> on_done) {
  const std::uint64_t key = take_flow_keys(1);
  const double wire = bytes / tuning_.protocol_efficiency;
  engine_.schedule_after(tuning_.launch_latency, [this, from, to, wire, key, done = std::move(on_done)]() mutable {
    network_.start(rail_router_.route(from, to, key), wire, std::move(done));
  });
}

CollectiveRunner::Launch CollectiveRunner::prepare(const CollectiveRequest& request, const CollectiveChoice& choice,
                                                   ProtocolUse use) {
  const ProtocolTuning protocol = tuning_.protocol(choice.protocol, use);
  const TransferContext context{engine_, network_, rail_router_};
  auto transfers = [context](TransferPlan plan) {
    return [context, plan = std::move(plan)](std::function<void()> done) mutable {
      run_transfers(context, std::move(plan), std::move(done));
    };
  };
  const PlanInputs in{request, tuning_, protocol, topology()};
  TransferPlan plan;
  switch (choice.algorithm) {
    case CollectiveAlgorithm::automatic:
    case CollectiveAlgorithm::ring: return {protocol.launch_latency, ring_body(request, choice.protocol, use)};
    case CollectiveAlgorithm::hierarchical:
    case CollectiveAlgorithm::sharp:
      return {protocol.launch_latency, hierarchical_body(request, choice, protocol.launch_latency)};
    case CollectiveAlgorithm::tree: {
      if (shape_of(request.members, topology()).node_count() < 2) {
        plan = plan_tree(in);
        break;
      }
      // Across nodes NCCL's trees pipeline thousands of small chunks; as
      // one chunk's pattern repeated, their fill costs what it costs NCCL.
      TransferPlan chunk = plan_tree_chunk(in);
      chunk.flow_key = take_flow_keys(1);
      return {protocol.launch_latency,
              [context, chunk = std::move(chunk), chunks = tree_chunks(in)](std::function<void()> done) mutable {
                run_pipelined(context, std::move(chunk), chunks, std::move(done));
              }};
    }
    case CollectiveAlgorithm::direct: plan = plan_direct(in); break;
    case CollectiveAlgorithm::halving_doubling: plan = plan_halving_doubling(in); break;
    case CollectiveAlgorithm::master: plan = plan_master(in); break;
    case CollectiveAlgorithm::nvls: {
      const GroupShape shape = shape_of(request.members, topology());
      if (!shape.nvswitch) throw std::invalid_argument("nvls needs every member on one NVSwitch");
      const double n = static_cast<double>(request.members.size());
      // multimem.ld_reduce reads every slice (bytes up, bytes/n down), then
      // multimem.st writes this rank's slice (bytes/n up, bytes down).
      const double moved = request.bytes * (n + 1) / n;
      plan = plan_in_switch(request.members, *shape.nvswitch, moved, moved, tuning_.nvls);
      plan.flow_key = take_flow_keys(1);
      return {tuning_.nvls.launch_latency, transfers(std::move(plan))};
    }
    case CollectiveAlgorithm::nvls_tree: {
      const GroupShape shape = shape_of(request.members, topology());
      NvlsTreeInputs tree{shape.nodes,
                          {},
                          request.bytes,
                          tuning_.nvls_tree,
                          tuning_.nvls.step_latency,
                          tuning_.protocol(Protocol::simple, use).efficiency};
      for (const auto& node : shape.nodes) tree.switches.push_back(*topology()->place(node.front())->nvswitch);
      TransferPlan chunk = plan_nvls_tree_chunk(tree);
      const int chunks = nvls_tree_chunks(tree);
      if (chunks >= tuning_.fast_path_nvls_tree_min_chunks &&
          chunk.transfers.size() * static_cast<std::uint64_t>(chunks) >= tuning_.fast_path_nvls_tree_min_transfers) {
        chunk.flow_key = take_flow_keys(1);
        return {tuning_.nvls_tree.launch_latency,
                [context, chunk = std::move(chunk), chunks](std::function<void()> done) mutable {
                  run_pipelined(context, std::move(chunk), chunks, std::move(done));
                }};
      }
      plan = plan_nvls_tree(tree);
      plan.flow_key = take_flow_keys(1);
      return {tuning_.nvls_tree.launch_latency, transfers(std::move(plan))};
    }
  }
  plan.flow_key = take_flow_keys(1);
  return {protocol.launch_latency, transfers(std::move(plan))};
}

CollectiveRunner::RingPlans CollectiveRunner::ring_plans(const CollectiveRequest& request, Protocol protocol) {
  PlanKeyView key = key_of(request);
  key.protocol = protocol;
  if (auto it = ring_plans_.find(key); it != ring_plans_.end()) return it->second;
  const ProtocolTuning p = tuning_.protocol(protocol, use_of(request));
  const CollectiveTuning ring_tuning = ring_tuning_for(tuning_, p);
  const auto orders = ring_orders(request, shape_of(request.members, topology()), topology());
  const double network_wire = ring_network_wire_format(tuning_, p, use_of(request));
  const double network_cap =
      network_wire * ring_network_payload_cap(tuning_, p, use_of(request), topology(), orders.size());
  auto plans = std::make_shared<std::vector<CachedRing>>();
  for (const auto& order : orders) {
    CollectiveRequest sub = request;
    sub.members = order;
    sub.bytes = request.bytes / static_cast<double>(orders.size());
    RingPlan plan = plan_ring(sub, ring_tuning, false);
    if (plan.chain || ring_send_count(plan) < ring_tuning.fast_path_min_sends) fill_ring_sends(plan);
    const std::size_t n = plan.order.size();
    std::vector<const Path*> fixed_paths;
    for (std::size_t i = 0; i < n; ++i) {
      const EndpointId from = plan.order[i], to = plan.order[(i + 1) % n];
      const bool net = crosses_nodes(topology(), from, to);
      plan.sync_latency.push_back(net ? p.network_step_latency : p.nvlink_step_latency);
      plan.wire_factor.push_back(net ? network_wire : 1.0 / p.efficiency);
      plan.max_bytes_per_s.push_back(net ? network_cap : std::numeric_limits<double>::infinity());
      // Between nodes the path is fixed too where no flow key can change it.
      fixed_paths.push_back(net ? rail_router_.route_for_every_key(from, to) : &rail_router_.route(from, to));
    }
    plans->push_back({std::move(plan), std::move(fixed_paths)});
  }
  if (plan_cache_detail::plan_cache_full(ring_plans_.size(), ring_plan_members_, key.members.size())) {
    ring_plans_.clear();
    ring_plan_members_ = 0;
  }
  ring_plan_members_ += key.members.size();
  ring_plans_.emplace(owned(key), plans);
  return plans;
}

CollectiveRunner::Body CollectiveRunner::ring_body(const CollectiveRequest& request, Protocol protocol,
                                                   ProtocolUse use) {
  RingPlans plans = ring_plans(request, protocol);
  const std::uint64_t first_flow_key = take_flow_keys(plans->size());
  return [this, plans = std::move(plans), first_flow_key, protocol, use](std::function<void()> done) {
    run_rings(*plans, first_flow_key, protocol, use, std::move(done));
  };
}

// Reduce-scatter inside each node, all-reduce of each rank's share across
// nodes among the GPUs with the same local index (one rail each, in
// parallel, by ring or in the fabric's switches), all-gather inside each node.
CollectiveRunner::HierarchicalPhases CollectiveRunner::hierarchical_phases(const CollectiveChoice& choice,
                                                                           const GroupShape& shape, double bytes) {
  const int m = shape.per_node();
  // Each phase is a ring of its own op and group, so its protocol's shares are its own.
  auto ring_phase = [&](CollectiveOp op, const std::vector<EndpointId>& members, double phase_bytes) {
    const CollectiveRequest sub{op, members, phase_bytes, CollectiveAlgorithm::ring, choice.protocol};
    return prepare(sub, {CollectiveAlgorithm::ring, choice.protocol, 0.0}, use_of(sub));
  };
  HierarchicalPhases phases;
  for (const auto& node : shape.nodes) {
    phases.scatter.push_back(ring_phase(CollectiveOp::reduce_scatter, node, bytes));
    phases.gather.push_back(ring_phase(CollectiveOp::all_gather, node, bytes));
  }
  const double share = bytes / m;
  for (int l = 0; l < m; ++l) {
    std::vector<EndpointId> rail;
    for (const auto& node : shape.nodes) rail.push_back(node[static_cast<std::size_t>(l)]);
    if (choice.algorithm == CollectiveAlgorithm::sharp) {
      const auto tree = topology_->reduction_tree(rail);
      if (!tree) throw std::invalid_argument("sharp: no switch reaches every node of the group");
      TransferPlan plan = plan_in_fabric(*tree, share, share, tuning_.sharp);
      plan.flow_key = take_flow_keys(1);
      const TransferContext context{engine_, network_, rail_router_};
      phases.across.push_back(
          {tuning_.sharp.launch_latency, [context, plan = std::move(plan)](std::function<void()> d) mutable {
             run_transfers(context, std::move(plan), std::move(d));
           }});
    } else {
      phases.across.push_back(ring_phase(CollectiveOp::all_reduce, rail, share));
    }
  }
  return phases;
}

// One phase: its parts (one per node or rail) at once, done when all are.
CollectiveRunner::Body CollectiveRunner::phase_body(std::vector<Launch> parts) {
  return [this, parts = std::move(parts)](std::function<void()> done) mutable {
    auto each = join(parts.size(), std::move(done));
    for (Launch& part : parts) {
      engine_.schedule_after(0, [body = std::move(part.body), each]() mutable { body(each); });
    }
  };
}

// Hierarchical runs its phases one after another, each a kernel of its own
// that pays its launch (the first one's is already paid), as Horovod-style
// hierarchical all-reduce does. SHARP is NCCL's CollNet: one kernel that
// pipelines the in-node and in-network steps chunk by chunk, so its pieces
// flow through the three phases as a pipeline.
CollectiveRunner::Body CollectiveRunner::hierarchical_body(const CollectiveRequest& request,
                                                           const CollectiveChoice& choice, TimePs relaunch) {
  const GroupShape shape = shape_of(request.members, topology());
  if (choice.algorithm == CollectiveAlgorithm::sharp) {
    const int pieces = sharp_pieces(request.bytes / shape.per_node(), tuning_.sharp);
    std::vector<std::vector<StageWork>> work(3);
    for (int k = 0; k < pieces; ++k) {
      HierarchicalPhases p = hierarchical_phases(choice, shape, request.bytes / pieces);
      work[0].push_back(phase_body(std::move(p.scatter)));
      work[1].push_back(phase_body(std::move(p.across)));
      work[2].push_back(phase_body(std::move(p.gather)));
    }
    // A launch's body runs once, so its plans move into the pipeline.
    return [work = std::move(work)](std::function<void()> done) mutable {
      run_stage_pipeline(std::move(work), std::move(done));
    };
  }
  HierarchicalPhases p = hierarchical_phases(choice, shape, request.bytes);
  auto first = phase_body(std::move(p.scatter));
  auto second = phase_body(std::move(p.across));
  auto third = phase_body(std::move(p.gather));
  return [this, first, second, third, relaunch](std::function<void()> done) mutable {
    first([this, second, third, relaunch, done = std::move(done)]() mutable {
      engine_.schedule_after(relaunch, [this, second, third, relaunch, done = std::move(done)]() mutable {
        second([this, third, relaunch, done = std::move(done)]() mutable {
          engine_.schedule_after(relaunch, [third, done = std::move(done)]() mutable { third(std::move(done)); });
        });
      });
    });
  };
}

double bus_bandwidth_bytes_per_s(CollectiveOp op, int ranks, double bytes, TimePs elapsed) {
  if (elapsed <= 0) return 0.0;
  return bytes / ps_to_seconds(elapsed) * bus_bandwidth_factor(op, ranks);
}

}  // namespace simctl
