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

// Whether `op` is one of the ops NCCL runs on rings (all-reduce, all-gather,
// reduce-scatter).
bool is_ring_op(CollectiveOp op);

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
