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
#include <cstdint>
#include <deque>
#include <map>
#include <unordered_map>
#include <vector>

#include "models/network/path.hpp"
#include "sim/topology/system_graph.hpp"

namespace simctl {

inline constexpr int kCpuTransitPenalty = 1;

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

// Lazily built routes, cached per root (tree) and per pair (path). The graph
// and its cables are passed to each call rather than held, so the owner stays
// freely copyable and movable. Not thread-safe: callers share one per thread.
class RouteCache {
 public:
  // A copy starts empty: the caches are rebuilt on demand rather than copied
  // (they can be tens of MB for a large cluster).
  RouteCache() = default;
  RouteCache(const RouteCache&) {}
  RouteCache(RouteCache&&) noexcept {}
  RouteCache& operator=(const RouteCache&) {
    clear();
    return *this;
  }
  RouteCache& operator=(RouteCache&&) noexcept {
    clear();
    return *this;
  }
  void clear() {
    trees_.clear();
    paths_.clear();
    ecmp_paths_.clear();
  }

  // Throw std::invalid_argument naming both parts when no route exists.
  const Path& route(const SystemGraph& graph, const std::vector<Cable>& cables, EndpointId from, EndpointId to);
  const Path& route_flow(const SystemGraph& graph, EndpointId from, EndpointId to, std::uint64_t flow_key);
  const RouteTree& tree(const SystemGraph& graph, EndpointId root);
  bool reachable(const SystemGraph& graph, EndpointId from, EndpointId to);

 private:
  using Pair = std::pair<EndpointId, EndpointId>;
  std::map<EndpointId, RouteTree> trees_;
  // Looked up for every transfer of a replay; node-based, so references stay valid.
  std::unordered_map<std::uint64_t, Path> paths_;  // by from << 32 | to
  // The distinct ECMP paths each pair has used so far; a deque keeps
  // references valid as paths are added. Bounded by the number of
  // equal-cost paths, not by the number of flow keys.
  std::map<Pair, std::deque<Path>> ecmp_paths_;
};

}  // namespace simctl
