#pragma once
// Builders of transfer plans for the algorithms other than the ring. Each is
// pure: request in, plan out, so its structure can be tested without running.
#include "models/network/collective_request.hpp"
#include "models/network/collective_topology.hpp"
#include "models/network/collective_tuning.hpp"
#include "models/network/reduction_tree.hpp"
#include "models/network/transfer_plan.hpp"

namespace simctl {

// What every builder needs: the request, the protocol's figures and the
// topology (may be null) to tell NVLink steps from network steps.
struct PlanInputs {
  const CollectiveRequest& request;
  const CollectiveTuning& tuning;
  ProtocolTuning protocol;
  const CollectiveTopology* topology = nullptr;
};

// Double binary tree (all_reduce): across nodes two binary trees, the second
// mirrored so that one's leaves are the other's inner nodes; inside a node a
// chain. Each tree reduces half the buffer up and broadcasts it down, in
// pipelined chunks. Across nodes its sends between nodes reach no more
// than NCCL's tree channels carry (CollectiveTuning::tree_channel_rate).
TransferPlan plan_tree(const PlanInputs& in);

// The tree across nodes, pipelined in NCCL's tree chunks (tree_chunk_bytes):
// how many chunks each tree carries, and one chunk's pattern, every transfer
// on its own lane, for run_pipelined.
int tree_chunks(const PlanInputs& in);
TransferPlan plan_tree_chunk(const PlanInputs& in);

// Recursive halving (reduce-scatter) then doubling (all-gather); all_reduce,
// reduce_scatter and all_gather on a power-of-two group.
TransferPlan plan_halving_doubling(const PlanInputs& in);

// Every rank sends its share to every other at once: all_to_all (bytes/n to
// each peer), all_gather, reduce_scatter, all_reduce (the two in turn),
// broadcast and reduce (root to all, all to root).
TransferPlan plan_direct(const PlanInputs& in);

// PyTorch DataParallel: broadcast = root sends the weights to each;
// reduce = each sends to the root; all_reduce = reduce then broadcast;
// reduce_scatter = the root scatters inputs (bytes/n each); all_gather = the
// root gathers outputs (bytes/n each). Rank 0's links carry everything.
TransferPlan plan_master(const PlanInputs& in);

// In-switch reduction: each member sends `up_bytes` to `reduction_switch` in
// pipelined chunks; once every member's chunk is in, the switch sends
// `down_bytes` of result back to each. NVLS (NVSwitch).
TransferPlan plan_in_switch(const std::vector<EndpointId>& members, EndpointId reduction_switch, double up_bytes,
                            double down_bytes, const InSwitchTuning& tuning);

// In-network reduction over a tree of switches (SHARP): per chunk, each edge
// carries one stream up once its child has every input of that chunk, and
// one stream of result down once its parent has it, so a switch's uplink
// carries one share whatever the number of members below it.
TransferPlan plan_in_fabric(const ReductionTree& tree, double up_bytes, double down_bytes,
                            const InSwitchTuning& tuning);

}  // namespace simctl
