#include "models/network/collective_choice.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include "models/network/mesh_rings.hpp"
#include "models/network/node_trees.hpp"

namespace simctl {

int sharp_pieces(double share_bytes, const InSwitchTuning& sharp) {
  const double pieces = std::floor(share_bytes / sharp.chunk_bytes / sharp.min_chunks_per_piece);
  return static_cast<int>(std::clamp(pieces, 1.0, static_cast<double>(sharp.max_pieces)));
}

bool is_ring_op(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter;
}

double ring_network_wire_format(const CollectiveTuning& tuning, const ProtocolTuning& protocol, ProtocolUse use) {
  return tuning.protocol(Protocol::simple, use).efficiency / protocol.efficiency;
}

double ring_network_payload_cap(const CollectiveTuning& tuning, const ProtocolTuning& protocol, ProtocolUse use,
                                const CollectiveTopology* topology, std::size_t rings) {
  if (!topology || topology->intra_bytes_per_s <= 0.0 || topology->inter_bytes_per_s <= 0.0 || rings == 0)
    return std::numeric_limits<double>::infinity();
  // A rank copies what it sends at no more than its NVLink share, nor than
  // its CTAs copy (each at the per-CTA rate, scaled by the protocol's share).
  const double simple = tuning.protocol(Protocol::simple, use).efficiency;
  double copy_rate = protocol.efficiency * topology->intra_bytes_per_s;
  if (use.cta_bytes_per_s > 0.0) {
    const int ctas = topology->ctas > 0 ? topology->ctas : tuning.ctas_across_nodes;
    const double per_cta = use.cta_bytes_per_s * protocol.efficiency / simple;
    copy_rate = std::min(copy_rate, ctas * per_cta);
  }
  return copy_rate / static_cast<double>(rings);
}

double ring_network_wire_factor(const CollectiveTuning& tuning, const ProtocolTuning& protocol, ProtocolUse use,
                                const CollectiveTopology* topology, std::size_t rings) {
  const double wire_format = ring_network_wire_format(tuning, protocol, use);
  const double cap = ring_network_payload_cap(tuning, protocol, use, topology, rings);
  if (std::isinf(cap)) return wire_format;
  return std::max(wire_format, topology->inter_bytes_per_s / cap);
}

namespace {

std::vector<Protocol> protocols_of(CollectiveAlgorithm a) {
  if (a == CollectiveAlgorithm::ring || a == CollectiveAlgorithm::tree)
    return {kWireProtocols.begin(), kWireProtocols.end()};
  return {Protocol::simple};
}

// Candidates NCCL's tuner weighs; halving-doubling, direct (except for
// all-to-all, which only it runs) and master never win by default: NCCL has
// none of them, and PyTorch DataParallel is a user's choice.
std::vector<CollectiveAlgorithm> default_candidates(CollectiveOp op) {
  if (op == CollectiveOp::all_to_all) return {CollectiveAlgorithm::direct};
  if (op != CollectiveOp::all_reduce) return {CollectiveAlgorithm::ring};
  return {CollectiveAlgorithm::ring,      CollectiveAlgorithm::tree,         CollectiveAlgorithm::nvls,
          CollectiveAlgorithm::nvls_tree, CollectiveAlgorithm::hierarchical, CollectiveAlgorithm::sharp};
}

struct Counts {
  double n, nodes, per_node, bytes;
};

// RCCL runs AMD's GPUs (CDNA); NVIDIA's run NCCL, which keeps its rings on
// a mesh (an NVLink-bridged pair).
bool runs_rccl(const MemberPlace& place) { return place.architecture.rfind("cdna", 0) == 0; }

// RCCL on a full mesh spreads its channels over every link, so each GPU's
// share for each peer crosses that peer's own link: the direct algorithm's
// pattern, which NCCL's candidates (made for switches) leave out.
bool runs_on_mesh(CollectiveOp op) {
  return op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter;
}

// Direct on a mesh: each link carries 1/n of the buffer each way per pass,
// two passes (reduce-scatter, then all-gather) for an all-reduce.
double mesh_direct_seconds(const ProtocolTuning& p, const Counts& c, CollectiveOp op, double link) {
  const double passes = op == CollectiveOp::all_reduce ? 2.0 : 1.0;
  return ps_to_seconds(p.launch_latency) + passes * c.bytes / c.n / (p.efficiency * link);
}

// Seconds per payload byte a rank sends around the rings, as the replay runs
// them (collective.cpp, ring_plans): across nodes each GPU sends 1/m of its
// ring traffic through its NIC (one ring per rail) at the NIC's rate over
// `network_wire` (ring_network_wire_factor) and the rest over NVLink at the
// protocol's share of its port.
double ring_seconds_per_byte(const ProtocolTuning& p, const Counts& c, double intra, double inter,
                             double network_wire) {
  if (c.nodes <= 1) return 1.0 / (p.efficiency * intra);
  return std::max((c.per_node - 1) / c.per_node / (p.efficiency * intra), network_wire / c.per_node / inter);
}

double ring_seconds(const ProtocolTuning& p, const Counts& c, CollectiveOp op, double intra, double inter,
                    double network_wire) {
  const bool ar = op == CollectiveOp::all_reduce;
  const bool chain = op == CollectiveOp::broadcast || op == CollectiveOp::reduce;
  const double steps = ar ? 2 * (c.n - 1) : c.n - 1;
  const double inter_steps = c.nodes > 1 ? (ar ? 2 * (c.nodes - 1) : c.nodes - 1) : 0.0;
  const double per_rank = chain ? c.bytes : steps * c.bytes / c.n;
  const double per_byte = chain ? 1.0 / (p.efficiency * (c.nodes > 1 ? std::min(intra, inter) : intra))
                                : ring_seconds_per_byte(p, c, intra, inter, network_wire);
  return ps_to_seconds(p.launch_latency) + (steps - inter_steps) * ps_to_seconds(p.nvlink_step_latency) +
         inter_steps * ps_to_seconds(p.network_step_latency) + per_rank * per_byte;
}

// NVLSTree needs each node's members on one NVLS-capable NVSwitch (in a
// mixed cluster, an A100 node's NVSwitch cannot reduce).
bool every_node_on_nvls(const GroupShape& shape, const CollectiveTopology* topology) {
  if (!topology) return false;
  for (const auto& node : shape.nodes) {
    const MemberPlace* first = topology->place(node.front());
    if (!first || !first->nvswitch) return false;
    for (EndpointId e : node) {
      const MemberPlace* place = topology->place(e);
      if (!place || !place->nvls || place->nvswitch != first->nvswitch) return false;
    }
  }
  return true;
}

// NVLSTree: the NVLS stages move bytes(m+1)/m per GPU each way over NVLink,
// the trees a share of the buffer per NIC (double_tree_nic_load); the slower
// bounds it, pipelined. Latency as NCCL's tuner: one NVLS sync and two
// network hops per tree level.
double nvls_tree_seconds(const Counts& c, const CollectiveTuning& tuning, double simple, double intra, double inter) {
  const NvlsTreeTuning& t = tuning.nvls_tree;
  const double levels = std::ceil(std::log2(c.nodes));
  const double nvlink = c.bytes * (c.per_node + 1) / c.per_node / (t.efficiency * intra);
  const double network = c.bytes * double_tree_nic_load(static_cast<int>(c.nodes)) / c.per_node / (simple * inter);
  const double chunk = std::min(c.bytes / 2, t.chunk_bytes) / (t.efficiency * intra);
  return ps_to_seconds(t.launch_latency + tuning.nvls.step_latency) +
         2 * levels * ps_to_seconds(t.network_step_latency) + std::max(nvlink, network) + chunk;
}

}  // namespace

double rccl_mesh_nodes_link_rate(const GroupShape& shape, const CollectiveTopology* topology) {
  if (!topology || shape.per_node() < 2 || !shape.uniform) return 0.0;
  double slowest = std::numeric_limits<double>::infinity();
  for (const auto& node : shape.nodes) {
    for (EndpointId m : node) {
      const MemberPlace* place = topology->place(m);
      if (!place || place->mesh_link_bytes_per_s <= 0.0 || !runs_rccl(*place)) return 0.0;
      slowest = std::min(slowest, place->mesh_link_bytes_per_s);
    }
  }
  return slowest;
}

double rccl_mesh_link_rate(const GroupShape& shape, const CollectiveTopology* topology) {
  return shape.node_count() == 1 ? rccl_mesh_nodes_link_rate(shape, topology) : 0.0;
}

namespace direct_ring_detail {

// Summed rates of the direct links from member i to member j, at [i * n + j].
std::vector<double> direct_rates(const std::vector<EndpointId>& members, const CollectiveTopology& topology) {
  const std::size_t n = members.size();
  std::map<EndpointId, std::size_t> index_of;
  for (std::size_t i = 0; i < n; ++i) index_of[members[i]] = i;
  std::vector<double> rates(n * n, 0.0);
  for (std::size_t i = 0; i < n; ++i) {
    for (const auto& [peer, bytes_per_s] : topology.place(members[i])->direct_links) {
      if (const auto j = index_of.find(peer); j != index_of.end()) rates[i * n + j->second] += bytes_per_s;
    }
  }
  return rates;
}

bool switchless(const std::vector<EndpointId>& members, const CollectiveTopology& topology) {
  return std::all_of(members.begin(), members.end(), [&](EndpointId m) {
    const MemberPlace* place = topology.place(m);
    return place && !place->nvswitch && !place->direct_links.empty();
  });
}

}  // namespace direct_ring_detail

DirectLinkRings direct_link_rings(const std::vector<EndpointId>& members, const GroupShape& shape,
                                  const CollectiveTopology* topology) {
  if (!topology || shape.node_count() != 1 || members.size() < 3 || !direct_ring_detail::switchless(members, *topology))
    return {};
  const std::vector<double> rates = direct_ring_detail::direct_rates(members, *topology);
  double slowest = std::numeric_limits<double>::infinity();
  for (double rate : rates) {
    if (rate > 0.0) slowest = std::min(slowest, rate);
  }
  if (std::isinf(slowest)) return {};
  std::vector<int> capacity;
  for (double rate : rates) capacity.push_back(static_cast<int>(std::floor(rate / slowest + 1e-9)));
  DirectLinkRings result{link_rings(members, capacity), slowest};
  if (result.rings.empty()) result.ring_bytes_per_s = 0.0;
  return result;
}

namespace {

// The CTAs of the slowest member set the pace of every ring it is in.
double slowest_cta_rate(const std::vector<EndpointId>& members, const CollectiveTopology* topology,
                        const CollectiveTuning& tuning) {
  if (tuning.cta_bytes_per_s <= 0.0) return tuning.cta_bytes_per_s;
  const double rate = slowest_member(members, topology,
                                     [&](const MemberPlace& place) { return tuning.cta_rate_for(place.architecture); });
  return std::isinf(rate) ? tuning.cta_bytes_per_s : rate;
}

}  // namespace

ProtocolUse protocol_use(const CollectiveRequest& r, const GroupShape& shape, const CollectiveTopology* topology,
                         const CollectiveTuning& tuning) {
  const bool spans_nodes = shape.node_count() > 1;
  ProtocolUse use;
  use.ll_quarter = spans_nodes || r.op == CollectiveOp::all_reduce || r.op == CollectiveOp::reduce;
  if (spans_nodes) {
    use.cta_bytes_per_s = slowest_cta_rate(r.members, topology, tuning);
    return use;
  }
  if (!reduces(r.op) || !topology || tuning.reduce_bytes_per_s.empty()) return use;
  // The slowest reducer sets the pace of the whole ring.
  for (EndpointId m : r.members) {
    const MemberPlace* place = topology->place(m);
    if (!place || place->port_bytes_per_s <= 0.0) continue;
    const auto rate = tuning.reduce_bytes_per_s.find(place->model);
    if (rate != tuning.reduce_bytes_per_s.end()) {
      use.share_cap = std::min(use.share_cap, rate->second / place->port_bytes_per_s);
    }
  }
  return use;
}

bool algorithm_runs_op(CollectiveAlgorithm a, CollectiveOp op) {
  switch (a) {
    case CollectiveAlgorithm::automatic:
    case CollectiveAlgorithm::direct: return true;
    case CollectiveAlgorithm::ring:
    case CollectiveAlgorithm::master: return op != CollectiveOp::all_to_all;
    case CollectiveAlgorithm::tree:
    case CollectiveAlgorithm::hierarchical:
    case CollectiveAlgorithm::nvls:
    case CollectiveAlgorithm::nvls_tree:
    case CollectiveAlgorithm::sharp: return op == CollectiveOp::all_reduce;
    case CollectiveAlgorithm::halving_doubling: return is_ring_op(op);
  }
  return false;
}

bool algorithm_applies(CollectiveAlgorithm a, const CollectiveRequest& r, const GroupShape& shape,
                       const CollectiveTopology* topology) {
  if (!algorithm_runs_op(a, r.op)) return false;
  const bool multi_node = shape.node_count() > 1 && shape.uniform;
  switch (a) {
    case CollectiveAlgorithm::hierarchical: return multi_node;
    case CollectiveAlgorithm::halving_doubling: return std::has_single_bit(r.members.size());
    case CollectiveAlgorithm::nvls: return topology && topology->nvls && shape.nvswitch.has_value();
    case CollectiveAlgorithm::nvls_tree:
      return multi_node && shape.per_node() > 1 && every_node_on_nvls(shape, topology);
    case CollectiveAlgorithm::sharp: return topology && topology->sharp && multi_node && topology->reduction_tree;
    default: return true;
  }
}

double estimate_seconds(CollectiveAlgorithm a, Protocol protocol, ProtocolUse use, const CollectiveRequest& r,
                        const GroupShape& shape, const CollectiveTopology& t, const CollectiveTuning& tuning) {
  const Counts c{static_cast<double>(r.members.size()), static_cast<double>(shape.node_count()),
                 static_cast<double>(shape.per_node()), r.bytes};
  const ProtocolTuning p = tuning.protocol(protocol, use);
  const double intra = t.intra_bytes_per_s > 0 ? t.intra_bytes_per_s : 1.0;
  const double inter = t.inter_bytes_per_s > 0 ? t.inter_bytes_per_s : intra;
  const double nvl = ps_to_seconds(p.nvlink_step_latency), net = ps_to_seconds(p.network_step_latency);
  switch (a) {
    case CollectiveAlgorithm::ring:
      if (rccl_mesh_link_rate(shape, &t) > 0.0 && is_ring_op(r.op)) {
        // Its rings share no link, so together they move at their count's rate.
        const double rings = static_cast<double>(mesh_ring_count(r.members.size()));
        return ring_seconds(p, c, r.op, intra * rings, inter, 1.0);
      }
      if (is_ring_op(r.op)) {
        // Searched only for ring ops: broadcast and reduce run an open chain.
        if (const DirectLinkRings direct = direct_link_rings(r.members, shape, &t); !direct.rings.empty()) {
          const double rings = static_cast<double>(direct.rings.size());
          return ring_seconds(p, c, r.op, direct.ring_bytes_per_s * rings, inter, 1.0);
        }
      }
      if (rccl_mesh_nodes_link_rate(shape, &t) > 0.0 && is_ring_op(r.op) &&
          !mesh_path_offsets(shape.per_node()).empty()) {
        // Across mesh nodes the rings' paths share no link either: a rank's
        // in-node traffic leaves on its m - 1 links, not one.
        return ring_seconds(p, c, r.op, intra * (c.per_node - 1), inter,
                            ring_network_wire_factor(tuning, p, use, &t, static_cast<std::size_t>(c.per_node)));
      }
      return ring_seconds(p, c, r.op, intra, inter,
                          ring_network_wire_factor(tuning, p, use, &t, static_cast<std::size_t>(c.per_node)));
    case CollectiveAlgorithm::tree: {
      // Bounded by the slower of NVLink and one NIC, as if one channel carried
      // it all. The replay is faster: across nodes its trees pipeline over
      // every NIC up to NCCL's tree-channel cap (plan_tree_chunk). Estimating
      // that instead picked Tree/LL128 at 16 MiB across H100 nodes, where
      // NCCL ran NVLSTree, and LL128 for pinned Tree at 32 GiB: NCCL's own
      // estimate also derates Tree at mid sizes (treeCorrectionFactor) and
      // caps LL128 trees lower (perChMaxTreeLL128Bws), which this one lacks.
      const double slowest = c.nodes > 1 ? std::min(intra, inter) : intra;
      return ps_to_seconds(p.launch_latency) + 2 * ((c.per_node - 1) * nvl + std::ceil(std::log2(c.nodes)) * net) +
             2 * c.bytes / (p.efficiency * tuning.tree_efficiency * slowest);
    }
    case CollectiveAlgorithm::nvls:
      return ps_to_seconds(tuning.nvls.launch_latency + tuning.nvls.step_latency) +
             (c.bytes * (c.n + 1) / c.n + std::min(c.bytes / 2, tuning.nvls.chunk_bytes)) /
                 (tuning.nvls.efficiency * intra);
    case CollectiveAlgorithm::nvls_tree: return nvls_tree_seconds(c, tuning, p.efficiency, intra, inter);
    case CollectiveAlgorithm::hierarchical:
    case CollectiveAlgorithm::sharp: {
      const double m = c.per_node;
      const double intra_phase = (m - 1) * nvl + (m - 1) / m * c.bytes / (p.efficiency * intra);
      const double share = c.bytes / m;
      const double inter_phase = a == CollectiveAlgorithm::sharp
                                     ? ps_to_seconds(tuning.sharp.launch_latency + tuning.sharp.step_latency) +
                                           share / (tuning.sharp.efficiency * inter)
                                     : ps_to_seconds(p.launch_latency) + 2 * (c.nodes - 1) * net +
                                           2 * (c.nodes - 1) / c.nodes * share / (p.efficiency * inter);
      if (a == CollectiveAlgorithm::hierarchical)
        return 2 * ps_to_seconds(p.launch_latency) + 2 * intra_phase + inter_phase;
      // SHARP pipelines its three phases over equal pieces.
      const double k = sharp_pieces(share, tuning.sharp);
      const double slowest = std::max(intra_phase, inter_phase);
      return ps_to_seconds(p.launch_latency) + (2 * intra_phase + inter_phase) / k + (k - 1) * slowest / k;
    }
    case CollectiveAlgorithm::direct: {
      if (const double link = rccl_mesh_link_rate(shape, &t); link > 0.0 && runs_on_mesh(r.op))
        return mesh_direct_seconds(p, c, r.op, link);
      const double out_of_node = c.nodes > 1 ? (c.n - c.per_node) / c.n * c.bytes / inter : 0.0;
      return ps_to_seconds(p.launch_latency) + std::max((c.n - 1) / c.n * c.bytes / intra, out_of_node) / p.efficiency;
    }
    case CollectiveAlgorithm::halving_doubling:
    case CollectiveAlgorithm::master:
    case CollectiveAlgorithm::automatic: break;
  }
  return 0.0;
}

CollectiveChoice choose_collective(const CollectiveRequest& r, const CollectiveTopology* topology,
                                   const CollectiveTuning& tuning) {
  const GroupShape shape = shape_of(r.members, topology);
  if (r.algorithm != CollectiveAlgorithm::automatic && !algorithm_applies(r.algorithm, r, shape, topology)) {
    throw std::invalid_argument(std::string(to_string(r.algorithm)) + " cannot run " + std::string(to_string(r.op)) +
                                " on this group of " + std::to_string(r.members.size()));
  }
  if (!topology) {
    const auto a = r.algorithm == CollectiveAlgorithm::automatic
                       ? (r.op == CollectiveOp::all_to_all ? CollectiveAlgorithm::direct : CollectiveAlgorithm::ring)
                       : r.algorithm;
    return {a, r.protocol == Protocol::automatic ? Protocol::simple : r.protocol, 0.0};
  }
  std::vector<CollectiveAlgorithm> algorithms = r.algorithm == CollectiveAlgorithm::automatic
                                                    ? default_candidates(r.op)
                                                    : std::vector<CollectiveAlgorithm>{r.algorithm};
  if (r.algorithm == CollectiveAlgorithm::automatic && runs_on_mesh(r.op) && rccl_mesh_link_rate(shape, topology) > 0.0)
    algorithms.push_back(CollectiveAlgorithm::direct);
  const ProtocolUse use = protocol_use(r, shape, topology, tuning);
  CollectiveChoice best{CollectiveAlgorithm::ring, Protocol::simple, std::numeric_limits<double>::infinity()};
  for (CollectiveAlgorithm a : algorithms) {
    if (!algorithm_applies(a, r, shape, topology)) continue;
    const std::vector<Protocol> protocols =
        r.protocol == Protocol::automatic ? protocols_of(a) : std::vector<Protocol>{r.protocol};
    for (Protocol p : protocols) {
      const double seconds = estimate_seconds(a, p, use, r, shape, *topology, tuning);
      if (seconds < best.estimated_seconds) best = {a, p, seconds};
    }
  }
  return best;
}

}  // namespace simctl
