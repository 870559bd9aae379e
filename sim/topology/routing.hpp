#pragma once
// Least-cost routes through a system graph. A route never passes *through* a
// part that cannot forward traffic (GPU, DRAM, storage): such parts appear
// only as its ends.
//
// Cost: one per hop, plus kCpuTransitPenalty for each CPU socket a route
// passes through. Crossing a socket's root complex (or the socket-to-socket
// link) is slower than a PCIe switch, NVLink or fabric hop, and NCCL avoids
// it where it can; without the penalty, a DGX H100 GPU talking to another
// node's GPU on a different rail would find gpu -> pcie_switch -> cpu ->
// pcie_switch -> nic (via the other rail's NIC) exactly as short as going out
// its own NIC and across a spine, and pick whichever was declared first.
// Where the socket is the only way (a PCIe-only workstation, GH200's Grace),
// routes still go through it.
//
// Two ways to pick among equal-cost routes:
//  - route(from, to): deterministic by declaration order; the search explores
//    each part's cables in the order they were declared and keeps the first
//    route it finds. One path per pair.
//  - route(from, to, flow_key): ECMP. At every part on the way, the next hop
//    is chosen among all neighbours on a least-cost route to `to` by a hash of
//    (flow_key, that part), as switches hash a flow's header. Same key, same
//    path; different keys spread over the equal-cost paths, and some collide.
//
// A generated fabric may instead route statically (FabricRouting::by_destination,
// `fabric: {routing: static}`), as InfiniBand's subnet manager fills its
// switches' forwarding tables: at a fabric switch the next hop toward a node
// is fixed by that node's index, one digit per tier (D-mod-k: the leaf's
// uplink is index mod k, the spine's index / k mod k), whatever the flow.
// A shift of every node by the same distance then puts no two flows on one
// uplink. Inside nodes both kinds pick as above (by key, or first declared),
// but a GPU's traffic to another node's GPU always leaves and arrives by the
// two GPUs' own NICs (own_nic.hpp).
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "models/network/path.hpp"
#include "sim/topology/own_nic.hpp"
#include "sim/topology/system_graph.hpp"

namespace simctl {

inline constexpr int kCpuTransitPenalty = 1;

// How the switches of a generated fabric choose among equal-cost next hops.
enum class FabricRouting : std::uint8_t {
  ecmp,            // by a hash of the flow (Ethernet's ECMP; a spread like adaptive routing's)
  by_destination,  // by the destination node's index (InfiniBand's static D-mod-k tables)
  adaptive,        // spread evenly over every uplink of a tier (ideal adaptive routing; fabric_bundles.hpp)
};

// How many queue pairs NCCL opens per connection between two GPUs of
// different nodes (NCCL_IB_QPS_PER_CONNECTION, default 1), and what an ECMP
// switch hashes: each queue pair apart (RoCEv2 NICs give each its own UDP
// source port; Meta's Enhanced-ECMP hashes its destination QP, Llama 3 paper
// Sec. 3.3.1), or the connection as one (a hash on fields every queue pair
// shares). NCCL moves a connection's data evenly over its queue pairs, so a
// connection hashed apart is one flow spread over their paths (Path::shares).
enum class EcmpHash : std::uint8_t { queue_pair, connection };
struct QueuePairs {
  int per_connection = 1;
  EcmpHash hash = EcmpHash::queue_pair;
  bool spread() const { return per_connection > 1 && hash == EcmpHash::queue_pair; }
};

// Least-cost tree from one root: every vertex's cost to or from the root (the
// graph is undirected and the cost symmetric) and the cable it is reached by.
// Cable indices rather than edge descriptors: 8 bytes a vertex, and still
// valid in a copy of the graph.
struct RouteTree {
  static constexpr std::int32_t kUnreachable = -1;
  static constexpr std::uint32_t kNoCable = UINT32_MAX;
  std::vector<std::int32_t> cost;  // kUnreachable where no route exists
  std::vector<std::uint32_t> via;  // the last cable of the route; kNoCable for the root
};

RouteTree build_route_tree(const SystemGraph& graph, EndpointId root);

// The cost a route adds for passing through `v` (not for starting or ending there).
int transit_penalty(const Part& v);

struct RouteGraph;
class RouteSearch;
class DestinationCosts;
struct NextHop;

// Lazily built routes, cached per pair (path). The graph and its cables are
// passed to each call rather than held, so the owner stays freely copyable
// and movable. Not thread-safe: callers share one per thread.
//
// No call keeps a whole tree per part (a 16,384-GPU cluster has 80,000
// parts, and a tree per GPU was 10 GB): route() and nearest() search from
// their root only as far as the answer needs (route_search.hpp), resuming
// the last root's search; ECMP and reachable() ask each destination's costs,
// assembled from trees rooted where nodes meet the fabric
// (destination_costs.hpp). Both answer exactly what whole trees would.
class RouteCache {
 public:
  // A copy starts empty: the caches are rebuilt on demand rather than copied
  // (they can be tens of MB for a large cluster).
  RouteCache();
  ~RouteCache();
  RouteCache(const RouteCache&) : RouteCache() {}
  RouteCache(RouteCache&&) noexcept : RouteCache() {}
  RouteCache& operator=(const RouteCache&) {
    clear();
    return *this;
  }
  RouteCache& operator=(RouteCache&&) noexcept {
    clear();
    return *this;
  }
  void clear();

  // Throw std::invalid_argument naming both parts when no route exists.
  const Path& route(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from, EndpointId to,
                    FabricRouting routing = FabricRouting::ecmp);
  const Path& route_flow(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from, EndpointId to,
                         std::uint64_t flow_key, FabricRouting routing = FabricRouting::ecmp);
  // Whether a route_flow walk between the two has met no choice its key
  // decides (so every key takes that path); false until one has been walked.
  bool keyless(EndpointId from, EndpointId to) const {
    return keyless_paths_.count((static_cast<std::uint64_t>(from) << 32) | to) > 0;
  }
  bool reachable(const SystemGraph& graph, EndpointId from, EndpointId to);
  std::optional<EndpointId> nearest(const SystemGraph& graph, EndpointId from, PartKind kind);
  // Every neighbour of `at` on a least-cost route to `to`: (part, cable).
  std::vector<std::pair<EndpointId, std::uint32_t>> next_hops(const SystemGraph& graph, EndpointId at, EndpointId to);
  // How many next hops a route from `from` to `to` chooses among at `at`:
  // next_hops' count, but one inside nodes on a route by own NICs, and only
  // the fabric's hops between their leaves.
  std::size_t choices(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from, EndpointId at,
                      EndpointId to);

 private:
  using Pair = std::pair<EndpointId, EndpointId>;
  const RouteGraph& flat(const SystemGraph& graph);
  RouteSearch& search_from(const SystemGraph& graph, EndpointId root);
  const DestinationCosts& costs_to(const SystemGraph& graph, EndpointId to);
  const std::vector<std::int32_t>& outside_tree(EndpointId root);
  const std::vector<NextHop>& hops_toward(const SystemGraph& graph, EndpointId at, EndpointId to,
                                          const DestinationCosts& costs);
  // The static fabric's walk; inside nodes, ECMP's pick for `flow_key`, or
  // the first declared hop without one. `keyed`, when given, is set if some
  // choice on the way depended on `flow_key`.
  Path walk_by_destination(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from, EndpointId to,
                           std::optional<std::uint64_t> flow_key, bool* keyed = nullptr);
  // A GPU's route to a GPU of another node through both GPUs' own NICs
  // (own_nic.hpp); nothing when either has none. Between the two NICs' leaf
  // switches the fabric picks as elsewhere: by `flow_key` (ECMP; the first
  // choice without one) or by the destination node's digits (static).
  std::optional<Path> route_via_own_nics(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from,
                                         EndpointId to, std::optional<std::uint64_t> flow_key, FabricRouting routing,
                                         bool* keyed);
  const std::optional<OwnNic>& own_nic(const SystemGraph& graph, EndpointId gpu);
  // The arriving NIC of a route by own NICs; nothing when the route is not one.
  const OwnNic* arriving_own_nic(const SystemGraph& graph, EndpointId from, EndpointId to);
  // The fabric's least-cost hops from `at` toward leaf `leaf` (own-NIC routes).
  void fabric_hops(EndpointId at, EndpointId leaf, std::vector<NextHop>& hops, std::vector<NextHop>& fabric);

  std::unique_ptr<RouteGraph> flat_;
  std::unique_ptr<RouteSearch> search_;       // the last root's search, resumed while the root stays
  std::unique_ptr<RouteSearch> node_search_;  // a workspace for searches inside a destination's node
  // Per destination asked for so far; per part a destination's node leads out to.
  std::unordered_map<EndpointId, std::unique_ptr<DestinationCosts>> destinations_;
  std::unordered_map<EndpointId, std::vector<std::int32_t>> outside_trees_;
  std::unordered_map<EndpointId, std::optional<OwnNic>> own_nics_;  // per GPU asked for
  std::vector<NextHop> hops_scratch_, fabric_scratch_;              // an own-NIC walk's, reused per flow
  // ECMP's choices at a part toward a destination, by at << 32 | to: every
  // flow between the same nodes asks them again with another key.
  std::unordered_map<std::uint64_t, std::vector<NextHop>> hops_;
  // Looked up for every transfer of a replay; node-based, so references stay valid.
  std::unordered_map<std::uint64_t, Path> paths_;  // by from << 32 | to
  // The distinct ECMP paths each pair has used so far; a deque keeps
  // references valid as paths are added. Bounded by the number of
  // equal-cost paths, not by the number of flow keys.
  std::map<Pair, std::deque<Path>> ecmp_paths_;
  // Pairs whose walk met no choice that the flow key decides (a static
  // fabric between nodes with one way in and out, or a single least-cost
  // path): every key takes this path, so it is looked up, not walked again.
  std::unordered_map<std::uint64_t, const Path*> keyless_paths_;  // by from << 32 | to
};

}  // namespace simctl
