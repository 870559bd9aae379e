#pragma once
// The default algorithm and protocol, chosen as NCCL's tuner chooses them
// (src/graph/tuning.cc): for every algorithm that can run the request on
// this group and every protocol it supports, a latency + size / bandwidth
// estimate; the smallest wins. A request's own algorithm or protocol, when
// not `automatic`, narrows the candidates to it.
#include <vector>

#include "models/network/collective_group.hpp"
#include "models/network/collective_request.hpp"
#include "models/network/collective_tuning.hpp"

namespace simctl {

struct CollectiveChoice {
  CollectiveAlgorithm algorithm = CollectiveAlgorithm::ring;
  Protocol protocol = Protocol::simple;
  double estimated_seconds = 0.0;  // the tuner's estimate, not the simulated time
};

// What the protocols' shares depend on for this request on this group: LL's
// share by op and reach, and the members' own reduce rate (a GPU model in
// the tuning's reduce_rate list) where it is below their NVSwitch ports.
ProtocolUse protocol_use(const CollectiveRequest& request, const GroupShape& shape, const CollectiveTopology* topology,
                         const CollectiveTuning& tuning);

// The pieces SHARP's pipeline cuts a rank's `share` into: at most
// max_pieces, so the in-node phases hide under the in-network one, each of
// at least min_chunks_per_piece chunks, so a piece keeps the switches' own
// pipeline full (collective_tuning.yaml).
int sharp_pieces(double share_bytes, const InSwitchTuning& sharp);

// A one-node group of RCCL GPUs (AMD's CDNA) on a full mesh, every member
// joined directly to every other GPU of its node (MI300X's xGMI): the
// slowest of those links in bytes/s, else 0. RCCL runs such a group's rings
// over every link (mesh_rings.hpp) and weighs the direct algorithm.
double rccl_mesh_link_rate(const GroupShape& shape, const CollectiveTopology* topology);
// The same for a group over several nodes, each a full mesh of RCCL GPUs
// (every member joined directly to each other GPU of its node): the
// slowest of those links, else 0.
double rccl_mesh_nodes_link_rate(const GroupShape& shape, const CollectiveTopology* topology);

// NCCL's rings on a one-node group of GPUs joined by direct links with no
// switch between them, where the links do not join every pair (DGX-1's
// NVLink hybrid cube-mesh): rings through every member over those links
// alone (mesh_rings.hpp, link_rings), each moving at the slowest link's
// rate, a link of k times that rate carrying k of them. NCCL's graph search
// finds such rings before it falls back to PCIe; in member order GPU3 ->
// GPU4 of a DGX-1 has no cable and its ring crossed PCIe and QPI.
struct DirectLinkRings {
  std::vector<std::vector<EndpointId>> rings;  // empty: the group is not such a group, or has no such ring
  double ring_bytes_per_s = 0.0;               // each ring's rate
};
DirectLinkRings direct_link_rings(const std::vector<EndpointId>& members, const GroupShape& shape,
                                  const CollectiveTopology* topology);

// Whether `op` is one of the ops NCCL runs on rings (all-reduce, all-gather,
// reduce-scatter).
bool is_ring_op(CollectiveOp op);

// Wire bytes per payload byte on a ring's NIC hop, for a group whose ranks
// each belong to `rings` rings (one per rail across nodes). A NIC moves the
// bytes by RDMA at its own rate: what the protocol loses there is only its
// wire format relative to Simple's (LL's flags, LL128's 8 of 128 bytes), not
// the SM copy overhead Simple's share stands for; site C's ten-node runs
// with one and four GPUs per node (accuracy_points.yaml) reach 48-49 GB/s
// per 400 Gb/s NIC, above Simple's share of the link. But the CTAs that run
// a rank's rings copy all it sends, over NVLink or into the NIC's buffers,
// at no more than the protocol's share of its NVLink port (the ring's rate
// on one node), nor than its CTA count times the per-CTA rate, split over
// its rings: with eight GPUs per node that, not the NIC, bounds the ring
// on NCCL's default 16 CTAs (sites C and G: 320-324 GB/s), and the NIC hop
// is slowed to it; 24 CTAs leave the NICs to bound it (site G: 391 GB/s).
// The replay sends the NIC hop at its wire format, capped at
// ring_network_payload_cap (so the NIC carries only what moves); this
// factor folds the two together for the tuner's estimate.
double ring_network_wire_factor(const CollectiveTuning& tuning, const ProtocolTuning& protocol, ProtocolUse use,
                                const CollectiveTopology* topology, std::size_t rings);

// A ring's NIC hop: its wire bytes per payload byte (the protocol's wire
// format relative to Simple's), and the payload rate its rank's CTAs copy
// into it at most (infinite: no bound known).
double ring_network_wire_format(const CollectiveTuning& tuning, const ProtocolTuning& protocol, ProtocolUse use);
double ring_network_payload_cap(const CollectiveTuning& tuning, const ProtocolTuning& protocol, ProtocolUse use,
                                const CollectiveTopology* topology, std::size_t rings);

// Whether `algorithm` can run `op` on some group (ring cannot run all_to_all,
// tree only all_reduce, ...).
bool algorithm_runs_op(CollectiveAlgorithm algorithm, CollectiveOp op);

// Whether `algorithm` can run `request` on this group at all.
bool algorithm_applies(CollectiveAlgorithm algorithm, const CollectiveRequest& request, const GroupShape& shape,
                       const CollectiveTopology* topology);

// The tuner's closed-form estimate, in seconds, with the protocol's shares for `use`.
double estimate_seconds(CollectiveAlgorithm algorithm, Protocol protocol, ProtocolUse use,
                        const CollectiveRequest& request, const GroupShape& shape, const CollectiveTopology& topology,
                        const CollectiveTuning& tuning);

// Without a topology the runner cannot tell NVSwitch from PCIe or one node
// from many, so `automatic` means the ring with Simple. Throws
// std::invalid_argument when the requested algorithm cannot run the request.
CollectiveChoice choose_collective(const CollectiveRequest& request, const CollectiveTopology* topology,
                                   const CollectiveTuning& tuning);

}  // namespace simctl
