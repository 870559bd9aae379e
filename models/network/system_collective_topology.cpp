#include "models/network/system_collective_topology.hpp"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <set>

namespace simctl {

namespace {

bool nvls_capable(LinkKind kind) { return kind == LinkKind::nvlink4 || kind == LinkKind::nvlink5; }

// The first link of the route from `gpu` to `to`: the GPU's own port.
const LinkSpec* first_hop(const System& system, EndpointId gpu, EndpointId to) {
  const Path& path = system.route(gpu, to);
  return path.links.empty() ? nullptr : &system.link_spec(path.links.front());
}

void add_rates(const System& system, CollectiveTopology& t) {
  for (EndpointId gpu : system.gpus()) {
    const MemberPlace& place = *t.place(gpu);
    if (place.nvswitch) {
      const LinkSpec* port = first_hop(system, gpu, *place.nvswitch);
      if (port) {
        t.intra_bytes_per_s = port->effective().bytes_per_s;
        t.intra_hop_latency = port->latency;
        t.nvls = nvls_capable(port->kind);
      }
    }
    // Between nodes: the slowest link on the way to a GPU of another node
    // (PCIe to the NIC, or the NIC's port).
    const std::vector<Bandwidth> capacities = system.link_capacities();
    for (EndpointId other : system.gpus()) {
      if (t.place(other)->node == place.node || !system.reachable(gpu, other)) continue;
      double slowest = std::numeric_limits<double>::infinity();
      for (LinkId l : system.route(gpu, other).links) slowest = std::min(slowest, capacities[l].bytes_per_s);
      t.inter_bytes_per_s = slowest;
      t.inter_path_latency = system.route(gpu, other).latency;
      break;
    }
    break;  // GPUs of a system share one node template in the configs simctl ships
  }
}

// Hops from `from` to every switch it reaches through switches alone (-1
// elsewhere): a breadth-first search of the fabric, which costs far less
// than routing every member to every switch of a 16,384-GPU fabric.
std::vector<int> fabric_hops(const SystemGraph& graph, EndpointId from) {
  std::vector<int> hops(boost::num_vertices(graph), -1);
  std::deque<EndpointId> queue{from};
  hops[from] = 0;
  while (!queue.empty()) {
    const EndpointId v = queue.front();
    queue.pop_front();
    for (const auto& e : boost::make_iterator_range(boost::out_edges(v, graph))) {
      const auto u = static_cast<EndpointId>(boost::target(e, graph));
      if (hops[u] >= 0 || graph[u].kind != PartKind::network_switch) continue;
      hops[u] = hops[v] + 1;
      queue.push_back(u);
    }
  }
  return hops;
}

// The switch fewest hops from the farthest member; ties: lowest id. A
// member reaches the fabric at its nearest switch (its leaf).
std::optional<EndpointId> nearest_to_all(const System& system, const std::vector<EndpointId>& switches,
                                         const std::vector<EndpointId>& gpus) {
  std::map<EndpointId, std::size_t> entry;  // a leaf -> the most hops any member takes to it
  for (EndpointId g : gpus) {
    const std::optional<EndpointId> leaf = system.nearest(g, PartKind::network_switch);
    if (!leaf) return std::nullopt;
    entry[*leaf] = std::max(entry[*leaf], system.route(g, *leaf).links.size());
  }
  std::vector<std::size_t> worst(boost::num_vertices(system.graph()), 0);
  for (const auto& [leaf, to_leaf] : entry) {
    const std::vector<int> hops = fabric_hops(system.graph(), leaf);
    for (EndpointId s : switches) {
      worst[s] = hops[s] < 0 ? std::numeric_limits<std::size_t>::max()
                             : std::max(worst[s], to_leaf + static_cast<std::size_t>(hops[s]));
    }
  }
  std::optional<EndpointId> best;
  for (EndpointId s : switches) {
    if (worst[s] != std::numeric_limits<std::size_t>::max() && (!best || worst[s] < worst[*best])) best = s;
  }
  return best;
}

// SHARP's aggregation tree follows the fabric: each member joins the first
// switch on its route to the root, and each switch the next one, so a leaf
// sends one reduced stream up, not one per member below it.
ReductionTree climb_to(const System& system, const std::vector<EndpointId>& gpus, EndpointId root) {
  ReductionTree tree{root, {}};
  std::set<EndpointId> joined;  // switches whose edge up is already in the tree
  for (EndpointId g : gpus) {
    std::vector<EndpointId> chain{g};
    for (LinkId l : system.route(g, root).links) {
      const EndpointId v = system.link_target(l);
      if (system.part(v).kind == PartKind::network_switch) chain.push_back(v);
    }
    const int switches_above = static_cast<int>(chain.size()) - 2;  // below the root
    for (std::size_t i = 0; i + 1 < chain.size(); ++i) {
      if (i > 0 && !joined.insert(chain[i]).second) break;  // the rest of the way is shared
      tree.edges.push_back({chain[i], chain[i + 1], switches_above - static_cast<int>(i)});
    }
  }
  return tree;
}

// `gpu`'s direct links to the other GPUs of its node. From the graph's own
// edges: routing every pair would cost a 16,384-GPU system 100,000 routes.
std::vector<std::pair<EndpointId, double>> direct_gpu_links(const System& system, EndpointId gpu) {
  const SystemGraph& graph = system.graph();
  const int node = system.part(gpu).node;
  std::vector<std::pair<EndpointId, double>> links;
  for (const auto& e : boost::make_iterator_range(boost::out_edges(gpu, graph))) {
    const auto u = static_cast<EndpointId>(boost::target(e, graph));
    if (graph[u].kind != PartKind::gpu || graph[u].node != node) continue;
    links.emplace_back(u, graph[e].spec.effective().bytes_per_s);
  }
  return links;
}

// The slowest of those links when they reach each of the node's `others`
// GPUs (a full mesh), else 0.
double mesh_link_rate(const std::vector<std::pair<EndpointId, double>>& links, int others) {
  std::set<EndpointId> peers;
  double slowest = std::numeric_limits<double>::infinity();
  for (const auto& [peer, bytes_per_s] : links) {
    peers.insert(peer);
    slowest = std::min(slowest, bytes_per_s);
  }
  return others > 0 && static_cast<int>(peers.size()) == others ? slowest : 0.0;
}

}  // namespace

CollectiveTopology describe_collective_topology(const System& system, bool sharp_enabled) {
  CollectiveTopology t;
  std::map<int, int> gpus_per_node;
  for (EndpointId gpu : system.gpus()) ++gpus_per_node[system.part(gpu).node];
  for (EndpointId gpu : system.gpus()) {
    MemberPlace place;
    place.node = system.part(gpu).node;
    place.nvswitch = system.nearest(gpu, PartKind::nvswitch);
    place.model = system.part(gpu).model;
    place.architecture = system.part(gpu).architecture;
    if (place.nvswitch) {
      if (const LinkSpec* port = first_hop(system, gpu, *place.nvswitch)) {
        place.port_bytes_per_s = port->effective().bytes_per_s;
        place.nvls = nvls_capable(port->kind);
      }
    } else {
      place.direct_links = direct_gpu_links(system, gpu);
      place.mesh_link_bytes_per_s = mesh_link_rate(place.direct_links, gpus_per_node.at(place.node) - 1);
    }
    t.set_place(gpu, place);
  }
  add_rates(system, t);
  const std::vector<EndpointId> switches = system.parts_of_kind(PartKind::network_switch);
  t.sharp = sharp_enabled && !switches.empty();
  if (t.sharp) {
    t.reduction_tree = [&system, switches](const std::vector<EndpointId>& gpus) -> std::optional<ReductionTree> {
      const std::optional<EndpointId> root = nearest_to_all(system, switches, gpus);
      if (!root) return std::nullopt;
      return climb_to(system, gpus, *root);
    };
  }
  return t;
}

}  // namespace simctl
