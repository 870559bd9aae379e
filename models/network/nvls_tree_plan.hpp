#pragma once
// NCCL's NVLSTree all-reduce, the default for all-reduce across NVSwitch
// nodes (H100 and later) since NCCL 2.18: inside each node the NVSwitch
// reduces (multimem.ld_reduce) so that the GPU of local rank l holds the
// node's sum of slice l (1/m of the buffer); across nodes the GPUs of one
// rail combine their slices over NCCL's double binary tree (node_trees.hpp;
// half of the slice on each tree); then each GPU multicasts its summed slice through its NVSwitch
// (multimem.st). Per GPU, NVLink moves bytes(m+1)/m each way, as single-node
// NVLS does, and each NIC carries double_tree_nic_load(nodes) x bytes/m each
// way: bytes/m on two nodes, twice that from four on. Chunked and
// pipelined: every stage of chunk c waits only for chunk c's earlier stages.
#include <vector>

#include "models/network/collective_tuning.hpp"
#include "models/network/transfer_plan.hpp"

namespace simctl {

struct NvlsTreeInputs {
  // Members by node, the same count in each; member l of every node is on
  // rail l (its NIC faces the other nodes' member l).
  const std::vector<std::vector<EndpointId>>& nodes;
  std::vector<EndpointId> switches;  // each node's NVSwitch
  double bytes = 0.0;                // the all-reduce's buffer
  NvlsTreeTuning tuning;
  TimePs multicast_latency = 0;     // NVLS sync once a chunk's result is back in every GPU
  double network_efficiency = 1.0;  // the Simple protocol's share of the NIC
};

TransferPlan plan_nvls_tree(const NvlsTreeInputs& in);
// The pipelining: how many chunks the plan sends, and the transfers of its
// first alone, which every chunk repeats on the same lanes (run_pipelined).
int nvls_tree_chunks(const NvlsTreeInputs& in);
TransferPlan plan_nvls_tree_chunk(const NvlsTreeInputs& in);

}  // namespace simctl
