#pragma once
// Shortest routes through a system graph, by hop count, computed with Boost's
// breadth-first search. A route never passes *through* a part that cannot
// forward traffic (GPU, DRAM, storage): such parts appear only as its ends.
//
// Ties between equally short routes break deterministically, by declaration
// order: BFS explores each part's cables in the order they were declared and
// keeps the first route it finds; the last hop into a part that cannot
// forward takes that part's first-declared cable among the shortest. (No
// ECMP spreading: all flows between two parts share one path.)
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "models/network/path.hpp"
#include "sim/topology/system_graph.hpp"

namespace simctl {

// Shortest-path tree from one source: for every vertex, its hop count and
// the cable it is reached by.
struct RouteTree {
  static constexpr int kUnreachable = -1;
  std::vector<int> hops;                      // kUnreachable where no route exists
  std::vector<std::optional<CableEdge>> via;  // the last cable of the route; none for the source
};

RouteTree build_route_tree(const SystemGraph& graph, EndpointId source);

// Lazily built routes, cached per source (tree) and per pair (path). The
// graph is passed to each call rather than held, so the owner stays freely
// copyable and movable. Not thread-safe: callers share one per thread.
class RouteCache {
 public:
  // Route trees hold edge descriptors, which point into one graph's storage;
  // a copied or moved System has new storage, so its cache starts empty.
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
  }

  // Throws std::invalid_argument naming both parts when no route exists.
  const Path& route(const SystemGraph& graph, EndpointId from, EndpointId to);
  const RouteTree& tree(const SystemGraph& graph, EndpointId source);
  bool reachable(const SystemGraph& graph, EndpointId from, EndpointId to);

 private:
  std::map<EndpointId, RouteTree> trees_;
  std::map<std::pair<EndpointId, EndpointId>, Path> paths_;  // node-based: references stay valid
};

}  // namespace simctl
