#include "sim/topology/system.hpp"

#include <algorithm>
#include <stdexcept>

#include "sim/topology/ecmp.hpp"

namespace simctl {

namespace {

// The figures a variant may change (gpu_variant.hpp), so one declared again
// elsewhere with the same figures is the same part.
bool same_figures(const GpuSpec& a, const GpuSpec& b) {
  if (a.variant_of != b.variant_of || a.memory_capacity != b.memory_capacity ||
      a.memory_bandwidth != b.memory_bandwidth || a.tdp_watts != b.tdp_watts ||
      a.compute.sustained_tensor_slowdown != b.compute.sustained_tensor_slowdown)
    return false;
  for (DType d : kAllDTypes) {
    if (a.peak_rate.find(d) != b.peak_rate.find(d)) return false;
  }
  return true;
}

}  // namespace

void System::add_gpu_variant(const GpuSpec& variant) {
  for (const GpuSpec& known : gpu_variants_) {
    if (known.id != variant.id) continue;
    // A template used by many nodes declares its variant once per node.
    if (same_figures(known, variant)) return;
    throw std::invalid_argument("GPU variant '" + variant.id + "' is declared twice with different figures");
  }
  gpu_variants_.push_back(variant);
}

EndpointId System::add_part(Part part) {
  if (by_name_.contains(part.name)) throw std::invalid_argument("part name '" + part.name + "' is used twice");
  routes_ = RouteCache{};  // routes computed before this part may now be wrong or short
  spread_.clear();
  sprayed_ = SprayedPaths{};
  const auto id = static_cast<EndpointId>(boost::add_vertex(part, graph_));
  by_name_.emplace(part.name, id);
  if (part.kind == PartKind::gpu) gpus_.push_back(id);
  num_nodes_ = std::max(num_nodes_, part.node + 1);
  return id;
}

void System::check_endpoint(EndpointId id) const {
  if (id >= num_parts()) {
    throw std::out_of_range("part id " + std::to_string(id) + " is out of range; the system has " +
                            std::to_string(num_parts()) + " parts");
  }
}

std::uint32_t System::add_cable(EndpointId a, EndpointId b, const LinkSpec& spec) {
  check_endpoint(a);
  check_endpoint(b);
  if (a == b) throw std::invalid_argument("a cable cannot join '" + part(a).name + "' to itself");
  if (boost::edge(a, b, graph_).second) {
    throw std::invalid_argument("a cable already joins '" + part(a).name + "' and '" + part(b).name +
                                "'; declare one cable with their combined bandwidth instead");
  }
  routes_ = RouteCache{};  // a new cable may shorten or create routes
  spread_.clear();
  sprayed_ = SprayedPaths{};
  Cable cable{static_cast<std::uint32_t>(cables_.size()), a, b, spec};
  boost::add_edge(a, b, cable, graph_);
  cables_.push_back(cable);
  return cable.index;
}

void System::cap_cable(std::uint32_t index, Bandwidth max_bandwidth, TimePs extra_latency) {
  Cable& cable = cables_.at(index);
  if (max_bandwidth.bytes_per_s < cable.spec.bandwidth.bytes_per_s) cable.spec.bandwidth = max_bandwidth;
  cable.spec.latency += extra_latency;
  graph_[boost::edge(cable.a, cable.b, graph_).first].spec = cable.spec;
  routes_ = RouteCache{};  // cached paths carry latencies
  spread_.clear();
  sprayed_ = SprayedPaths{};
}

const Part& System::part(EndpointId id) const {
  check_endpoint(id);
  return graph_[id];
}

void System::set_compute_speed(EndpointId gpu, double fraction) {
  check_endpoint(gpu);
  if (graph_[gpu].kind != PartKind::gpu) throw std::invalid_argument(graph_[gpu].name + " is not a GPU");
  if (!(fraction > 0.0 && fraction <= 1.0)) throw std::invalid_argument("compute speed must be in (0, 1]");
  graph_[gpu].compute_speed = fraction;
}

std::optional<EndpointId> System::find(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) return std::nullopt;
  return it->second;
}

std::vector<EndpointId> System::parts_of_kind(PartKind kind) const {
  std::vector<EndpointId> out;
  for (EndpointId v = 0; v < num_parts(); ++v) {
    if (graph_[v].kind == kind) out.push_back(v);
  }
  return out;
}

EndpointId System::link_source(LinkId link) const {
  if (is_bundle(link)) return bundle(link).source;
  const Cable& c = cable(link / 2);
  return link % 2 == 0 ? c.a : c.b;
}

EndpointId System::link_target(LinkId link) const {
  if (is_bundle(link)) return bundle(link).target;
  const Cable& c = cable(link / 2);
  return link % 2 == 0 ? c.b : c.a;
}

std::string System::link_name(LinkId link) const {
  if (is_bundle(link))
    return bundle(link).name + " (" + std::to_string(bundle(link).members.size()) + " links, even spread)";
  return part(link_source(link)).name + " -> " + part(link_target(link)).name;
}

std::vector<Bandwidth> System::link_capacities() const {
  std::vector<Bandwidth> out;
  out.reserve(num_links());
  for (const Cable& c : cables_) {
    out.push_back(c.spec.effective());  // a -> b
    out.push_back(c.spec.effective());  // b -> a: full duplex, same rate
  }
  for (const LinkBundle& b : bundles_.all()) out.push_back(b.spec.effective());
  return out;
}

std::vector<LinkId> System::count_only_links() const {
  std::vector<LinkId> out;
  for (std::size_t b = 0; b < bundles_.size(); ++b) {
    if (bundles_[b].never_binding) out.push_back(static_cast<LinkId>(num_links() + b));
  }
  return out;
}

void System::set_fabric_bundles(FabricBundles bundles) {
  bundles_ = std::move(bundles);
  routes_ = RouteCache{};
  spread_.clear();
  sprayed_ = SprayedPaths{};
}

void System::set_queue_pairs(QueuePairs queue_pairs) {
  if (queue_pairs.per_connection < 1) throw std::invalid_argument("System: a connection has at least one queue pair");
  queue_pairs_ = queue_pairs;
  spread_.clear();
}

void System::set_fabric_routing(FabricRouting routing) {
  fabric_routing_ = routing;
  routes_ = RouteCache{};  // paths found the other way
  spread_.clear();
  sprayed_ = SprayedPaths{};
}

// An adaptive fabric is walked as a static one (every walk between two
// leaves has the same hops, so the same latency), then pooled.
const Path& System::sprayed(const Path& physical) const {
  if (bundles_.empty()) return physical;
  const auto known = sprayed_.by_walk.find(&physical);
  if (known != sprayed_.by_walk.end()) return known->second;
  std::size_t first = physical.links.size(), last = 0;
  for (std::size_t i = 0; i < physical.links.size(); ++i) {
    const LinkId l = physical.links[i];
    if (!fabric_switch(link_source(l)) || !fabric_switch(link_target(l))) continue;
    first = std::min(first, i);
    last = i;
  }
  Path& out = sprayed_.by_walk[&physical];
  out = physical;
  if (first > last) return out;
  const auto pools = bundles_.between(link_source(physical.links[first]), link_target(physical.links[last]));
  if (!pools) return out;
  out.links.assign(physical.links.begin(), physical.links.begin() + static_cast<std::ptrdiff_t>(first));
  for (std::uint32_t b : *pools) out.links.push_back(static_cast<LinkId>(num_links() + b));
  out.links.insert(out.links.end(), physical.links.begin() + static_cast<std::ptrdiff_t>(last) + 1,
                   physical.links.end());
  return out;
}

bool System::fabric_switch(EndpointId id) const {
  const Part& p = part(id);
  return p.kind == PartKind::network_switch && p.node == kNoNode;
}

const Path& System::route(EndpointId from, EndpointId to) const {
  check_endpoint(from);
  check_endpoint(to);
  if (fabric_routing_ == FabricRouting::adaptive) {
    return sprayed(routes_.route(graph_, cables_, from, to, FabricRouting::by_destination));
  }
  return routes_.route(graph_, cables_, from, to, fabric_routing_);
}

const Path& System::route(EndpointId from, EndpointId to, std::uint64_t flow_key) const {
  check_endpoint(from);
  check_endpoint(to);
  if (from == to) return route(from, to);  // the cached empty path
  if (fabric_routing_ == FabricRouting::adaptive) {
    return sprayed(routes_.route_flow(graph_, cables_, from, to, flow_key, FabricRouting::by_destination));
  }
  if (spreads(from, to)) return spread(from, to);
  return routes_.route_flow(graph_, cables_, from, to, flow_key, fabric_routing_);
}

// Queue pairs are the NICs': a connection inside one node (or from a part
// outside every node) is one flow as before.
bool System::spreads(EndpointId from, EndpointId to) const {
  if (fabric_routing_ != FabricRouting::ecmp || !queue_pairs_.spread()) return false;
  const int node = graph_[from].node;
  return node != kNoNode && graph_[to].node != kNoNode && node != graph_[to].node;
}

const Path* System::route_for_every_key(EndpointId from, EndpointId to) const {
  if (fabric_routing_ == FabricRouting::ecmp) return spreads(from, to) ? &route(from, to, 0) : nullptr;
  const Path& path = route(from, to, 0);
  return from == to || routes_.keyless(from, to) ? &path : nullptr;
}

// Each link carries the share of the connection's queue pairs that cross
// it; links appear in the order the queue pairs first cross them.
const Path& System::spread(EndpointId from, EndpointId to) const {
  const std::uint64_t pair = (static_cast<std::uint64_t>(from) << 32) | to;
  if (auto known = spread_.find(pair); known != spread_.end()) return known->second;
  const int qps = queue_pairs_.per_connection;
  std::vector<const Path*> walks;
  for (int q = 0; q < qps; ++q) {
    walks.push_back(&routes_.route_flow(graph_, cables_, from, to, queue_pair_key(from, to, q), fabric_routing_));
  }
  Path& out = spread_[pair];
  if (std::all_of(walks.begin(), walks.end(), [&](const Path* w) { return w == walks.front(); })) {
    out = *walks.front();  // one path (both ends under one leaf): nothing to spread
    return out;
  }
  std::unordered_map<LinkId, std::size_t> position;
  std::vector<int> crossings;
  for (const Path* walk : walks) {
    out.latency = std::max(out.latency, walk->latency);
    for (LinkId link : walk->links) {
      const auto [it, added] = position.try_emplace(link, out.links.size());
      if (added) {
        out.links.push_back(link);
        crossings.push_back(0);
      }
      ++crossings[it->second];
    }
  }
  for (int c : crossings) out.shares.push_back(static_cast<double>(c) / qps);
  return out;
}

std::vector<std::pair<EndpointId, std::uint32_t>> System::next_hops(EndpointId at, EndpointId to) const {
  check_endpoint(at);
  check_endpoint(to);
  return routes_.next_hops(graph_, at, to);
}

std::size_t System::route_choices(EndpointId from, EndpointId at, EndpointId to) const {
  check_endpoint(from);
  check_endpoint(at);
  check_endpoint(to);
  return routes_.choices(graph_, cables_, from, at, to);
}

bool System::reachable(EndpointId from, EndpointId to) const {
  check_endpoint(from);
  check_endpoint(to);
  return routes_.reachable(graph_, from, to);
}

std::optional<EndpointId> System::nearest(EndpointId from, PartKind kind) const {
  check_endpoint(from);
  return routes_.nearest(graph_, from, kind);
}

}  // namespace simctl
