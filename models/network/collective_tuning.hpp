#pragma once
// What NCCL adds on top of the wire: fixed and per-step latencies and the
// share of the links' effective rate its protocol reaches. Data in
// collective_tuning.yaml, each figure with the measurement or source it is
// fitted to.
#include <cstdint>
#include <map>
#include <string>

#include "models/network/collective_algorithm.hpp"
#include "sim/config/data_root.hpp"
#include "sim/core/units.hpp"

namespace simctl {

// One wire protocol's cost: the share of the link it reaches, the launch
// latency, and the sync latency per step over NVLink and over the network.
struct ProtocolTuning {
  double efficiency = 1.0;
  TimePs launch_latency = 0;
  TimePs nvlink_step_latency = 0;
  TimePs network_step_latency = 0;
};

// What a protocol's share of the wire depends on besides the protocol.
struct ProtocolUse {
  // NCCL's tuner gives LL a quarter of the bus bandwidth when the collective
  // reduces or spans nodes, a third otherwise (src/graph/tuning.cc).
  bool ll_quarter = true;
  // The largest share of the wire the members' own reduction keeps up with
  // (1: the wire bounds it; below 1 only for a reduction inside a node).
  double share_cap = 1.0;
  // Across nodes: what one of NCCL's CTAs copies per second for the slowest
  // member (CollectiveTuning::cta_rate_for); 0 where no CTA bound applies.
  double cta_bytes_per_s = 0.0;
};

// In-switch reduction (NVLS, SHARP): the share of the port rate the switch's
// reduce-and-multicast reaches, its latencies and its pipelining granularity.
struct InSwitchTuning {
  double efficiency = 1.0;
  TimePs launch_latency = 0;
  TimePs step_latency = 0;
  double chunk_bytes = 16.0 * kMiB;
  // SHARP's pipeline of in-node and in-network phases: at most max_pieces
  // pieces, each of at least min_chunks_per_piece chunks (1, 1: none).
  int max_pieces = 1;
  int min_chunks_per_piece = 1;
};

// NVLSTree (nvls_tree_plan.hpp): NVLink SHARP inside each node, a double
// binary tree across nodes.
struct NvlsTreeTuning {
  double efficiency = 1.0;          // the share of the NVSwitch port its in-node stages reach
  TimePs launch_latency = 0;        // once per collective
  TimePs network_step_latency = 0;  // per tree hop across the network
  double chunk_bytes = 4.0 * kMiB;  // pipelining granularity
  int max_chunks = 64;              // bounds the transfer count for huge buffers
};

struct CollectiveTuning {
  // Ring with the Simple protocol (the fields the first ring model used).
  TimePs launch_latency = 0;         // once per collective (kernel launch, setup)
  TimePs step_latency = 0;           // per ring step on the dependency chain (flag sync), over NVLink
  double protocol_efficiency = 1.0;  // payload / effective link rate for bulk transfers
  double chunk_bytes = 4.0 * kMiB;   // pipelining granularity of one ring step
  int max_chunks_per_step = 64;      // bounds the flow count for huge buffers
  TimePs network_step_latency = 0;   // per ring step that crosses the network (Simple)
  // Rings across nodes: each of NCCL's CTAs (channels) copies at most
  // cta_bytes_per_s of payload (Simple), and NCCL runs ctas_across_nodes of
  // them unless the job sets a count (CollectiveTopology::ctas).
  double cta_bytes_per_s = 0.0;  // 0: no per-CTA bound
  int ctas_across_nodes = 0;
  std::map<std::string, double> cta_bytes_per_s_by_architecture;  // architecture -> its own per-CTA rate
  // A GPU architecture's per-CTA rate: its own where listed, else cta_bytes_per_s.
  double cta_rate_for(const std::string& architecture) const {
    const auto it = cta_bytes_per_s_by_architecture.find(architecture);
    return it == cta_bytes_per_s_by_architecture.end() ? cta_bytes_per_s : it->second;
  }

  ProtocolTuning ll;                       // LL where it reduces or spans nodes
  double ll_copy_efficiency = 1.0;         // LL's share in a single-node gather, scatter or broadcast
  ProtocolTuning ll128;                    // LL128
  double tree_efficiency = 1.0;            // a tree's share of the ring's bandwidth (NCCL derates it)
  double tree_chunk_bytes = 512.0 * 1024;  // across nodes: NCCL's Tree/Simple chunk
  // Across nodes each of NCCL's tree channels (one tree pair per local rank)
  // adds at most this much bus bandwidth, on two nodes and on three or more
  // (NCCL's perChMaxTreeBws, per GPU generation); an architecture not listed
  // is bound by its links alone.
  struct TreeChannelRate {
    double two_nodes = 0.0, more_nodes = 0.0;  // bytes/s
  };
  std::map<std::string, TreeChannelRate> tree_channel_rate_by_architecture;
  // The rate for `architecture` on `nodes` nodes; 0 for none (one node, or not listed).
  double tree_channel_rate(const std::string& architecture, int nodes) const {
    const auto it = tree_channel_rate_by_architecture.find(architecture);
    if (nodes < 2 || it == tree_channel_rate_by_architecture.end()) return 0.0;
    return nodes == 2 ? it->second.two_nodes : it->second.more_nodes;
  }
  InSwitchTuning nvls;
  InSwitchTuning sharp;
  NvlsTreeTuning nvls_tree;
  // A ring with more sends than this runs as steady flows (ring_fast.hpp).
  std::uint64_t fast_path_min_sends = UINT64_MAX;
  // NVLSTree plans of at least this many transfers and chunks run as steady
  // flows (pipelined_run.hpp).
  std::uint64_t fast_path_nvls_tree_min_transfers = UINT64_MAX;
  int fast_path_nvls_tree_min_chunks = 1;

  // Bytes/s NCCL's kernels reduce at on a GPU model (catalogue id), where
  // that is below the wire; a model not listed is bound by its links alone.
  std::map<std::string, double> reduce_bytes_per_s;

  // The figures of one protocol for `use`; Simple's are the ring fields above.
  ProtocolTuning protocol(Protocol p, ProtocolUse use) const;

  static CollectiveTuning load(const std::string& path = data_root() + "/models/network/collective_tuning.yaml");
};

}  // namespace simctl
