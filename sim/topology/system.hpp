#pragma once
// A whole machine or cluster as a graph of parts joined by full-duplex
// cables, and the router over it. Built by load_system (system_config.hpp) or
// by hand in tests; read by the executor, the flow network and reports.
//
// Ids: a part's EndpointId is its vertex index, in declaration order; GPUs
// are numbered into global ranks in that same order (node-major). Cable c is
// two directed links: 2c from its first-named end to the other, 2c+1 back.
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "models/devices/device_specs.hpp"
#include "models/network/link_kinds.hpp"
#include "models/network/path.hpp"
#include "sim/topology/fabric_bundles.hpp"
#include "sim/topology/routing.hpp"
#include "sim/topology/system_graph.hpp"

namespace simctl {

class System final : public Router {
 public:
  System() = default;
  explicit System(std::string name) : name_(std::move(name)) {}

  // Building. Throw std::invalid_argument on a duplicate part name, an
  // unknown endpoint, a cable from a part to itself, or a second cable
  // between the same two parts (give the one cable the combined bandwidth).
  EndpointId add_part(Part part);
  std::uint32_t add_cable(EndpointId a, EndpointId b, const LinkSpec& spec);
  // Caps a cable at `max_bandwidth` per direction (raw, before efficiency)
  // and adds `extra_latency`: a device behind it that is slower than the
  // cable, such as a disk behind its PCIe or SATA port.
  void cap_cable(std::uint32_t index, Bandwidth max_bandwidth, TimePs extra_latency);

  const std::string& name() const { return name_; }
  const SystemGraph& graph() const { return graph_; }

  std::size_t num_parts() const { return boost::num_vertices(graph_); }
  const Part& part(EndpointId id) const;
  // A GPU computing at `fraction` of its catalogue speed (0 < fraction <= 1).
  void set_compute_speed(EndpointId gpu, double fraction);
  std::optional<EndpointId> find(std::string_view name) const;
  // GPUs in global rank order.
  const std::vector<EndpointId>& gpus() const { return gpus_; }
  std::vector<EndpointId> parts_of_kind(PartKind kind) const;
  // Number of nodes (1 + the highest node index of any part; 0 if none).
  int num_nodes() const { return num_nodes_; }

  std::size_t num_cables() const { return cables_.size(); }
  std::size_t num_links() const { return 2 * cables_.size(); }
  // The flow network's links: the cables' directed links, then the bundles
  // of an adaptively routed fabric (fabric_bundles.hpp). The link_ queries
  // below take either.
  std::size_t num_flow_links() const { return num_links() + bundles_.size(); }
  bool is_bundle(LinkId link) const { return link >= num_links(); }
  const LinkBundle& bundle(LinkId link) const { return bundles_[link - num_links()]; }
  const FabricBundles& fabric_bundles() const { return bundles_; }
  void set_fabric_bundles(FabricBundles bundles);
  // The bundles that can never limit a flow (LinkBundle::never_binding), for
  // a flow network to count only.
  std::vector<LinkId> count_only_links() const;
  const Cable& cable(std::uint32_t index) const { return cables_.at(index); }
  const LinkSpec& link_spec(LinkId link) const { return is_bundle(link) ? bundle(link).spec : cable(link / 2).spec; }
  EndpointId link_source(LinkId link) const;
  EndpointId link_target(LinkId link) const;
  std::string link_name(LinkId link) const;  // "node0.gpu3 -> node0.nvswitch"
  // Effective rate (raw bandwidth x protocol efficiency) of every directed
  // link and bundle, indexed by LinkId: what the flow network shares among flows.
  std::vector<Bandwidth> link_capacities() const;

  // GPUs the system file declares as variants of catalogue parts
  // (parts.<group>.variant), whose ids their parts carry as their model.
  // Throws std::invalid_argument when an id comes again with other figures.
  void add_gpu_variant(const GpuSpec& variant);
  const std::vector<GpuSpec>& gpu_variants() const { return gpu_variants_; }

  // How the generated fabric's switches pick among equal-cost routes
  // (routing.hpp); ECMP until a `fabric: {routing: static | adaptive}` sets it.
  void set_fabric_routing(FabricRouting routing);
  FabricRouting fabric_routing() const { return fabric_routing_; }
  // Queue pairs per connection under ECMP (routing.hpp); one until a
  // `fabric: {qps_per_connection: K}` sets more.
  void set_queue_pairs(QueuePairs queue_pairs);
  const QueuePairs& queue_pairs() const { return queue_pairs_; }

  // Least-cost route (hops, plus a penalty for crossing a CPU socket; see
  // routing.hpp), the first declared among equals; cached, so the reference
  // stays valid for the System's lifetime. from == to gives an empty path.
  // Throws std::invalid_argument when no route exists.
  const Path& route(EndpointId from, EndpointId to) const override;
  // ECMP: one of the least-cost routes, chosen per part on the way by a hash
  // of `flow_key` (see routing.hpp). The reference stays valid likewise.
  // Where queue pairs hash apart (QueuePairs::spread), the connection's
  // queue pairs' routes merged into one path with shares, the same for every
  // key: a connection's queue pairs are made once.
  const Path& route(EndpointId from, EndpointId to, std::uint64_t flow_key) const override;
  // Router::route_for_every_key: under ECMP only a spread connection; under
  // static and adaptive routing every pair whose walk met no in-node choice.
  const Path* route_for_every_key(EndpointId from, EndpointId to) const override;
  // Every neighbour of `at` on a least-cost route to `to`, with the cable
  // to it: what ECMP chooses among there. Empty at `to` or when unreachable.
  std::vector<std::pair<EndpointId, std::uint32_t>> next_hops(EndpointId at, EndpointId to) const;
  // How many next hops the route from `from` to `to` picks among at `at`
  // (routing.hpp): fewer than next_hops where a GPU's own NIC decides.
  std::size_t route_choices(EndpointId from, EndpointId at, EndpointId to) const;
  bool reachable(EndpointId from, EndpointId to) const;
  // The part of `kind` cheapest to reach from `from` (ties: lowest id); none
  // when no such part is reachable. E.g. a GPU's host memory or its NIC.
  std::optional<EndpointId> nearest(EndpointId from, PartKind kind) const;

 private:
  void check_endpoint(EndpointId id) const;
  // Routes of an adaptive fabric: the walked path with its run between two
  // leaves replaced by their bundles (the walk's own links elsewhere).
  const Path& sprayed(const Path& physical) const;
  // The ECMP routes of the connection's queue pairs, merged (Path::shares).
  const Path& spread(EndpointId from, EndpointId to) const;
  bool spreads(EndpointId from, EndpointId to) const;
  bool fabric_switch(EndpointId part) const;

  // Adaptive routes by the walked path they stand for (a pointer into
  // routes_): emptied with it, on a copy or a move.
  struct SprayedPaths {
    std::unordered_map<const Path*, Path> by_walk;
    SprayedPaths() = default;
    SprayedPaths(const SprayedPaths&) {}
    SprayedPaths(SprayedPaths&&) noexcept {}
    SprayedPaths& operator=(const SprayedPaths&) {
      by_walk.clear();
      return *this;
    }
    SprayedPaths& operator=(SprayedPaths&&) noexcept {
      by_walk.clear();
      return *this;
    }
  };

  std::string name_;
  SystemGraph graph_;
  std::vector<Cable> cables_;  // by cable index; mirrors the edge bundles
  std::map<std::string, EndpointId, std::less<>> by_name_;
  std::vector<EndpointId> gpus_;
  int num_nodes_ = 0;
  std::vector<GpuSpec> gpu_variants_;
  FabricRouting fabric_routing_ = FabricRouting::ecmp;
  QueuePairs queue_pairs_;
  FabricBundles bundles_;
  mutable RouteCache routes_;  // filled lazily; deterministic, so logically const
  mutable SprayedPaths sprayed_;
  // Spread connections by (from << 32 | to): node-based, so references stay
  // valid. Their walks live in routes_, which every change empties along with this.
  mutable std::unordered_map<std::uint64_t, Path> spread_;
};

}  // namespace simctl
