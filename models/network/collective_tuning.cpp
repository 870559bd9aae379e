#include "models/network/collective_tuning.hpp"

#include <algorithm>

#include "sim/config/config_node.hpp"

namespace simctl {

namespace {

double fraction(const ConfigNode& node, std::string_view key) {
  const double value = node.number(key);
  if (value <= 0.0 || value > 1.0) node.child(key).fail("must be in (0, 1]");
  return value;
}

ProtocolTuning read_protocol(const ConfigNode& node) {
  return {fraction(node, "efficiency"), node.time("launch_latency"), node.time("nvlink_step_latency"),
          node.time("network_step_latency")};
}

InSwitchTuning read_in_switch(const ConfigNode& node) {
  node.expect_keys(
      {"efficiency", "launch_latency", "step_latency", "chunk_size", "max_pieces", "min_chunks_per_piece", "sources"});
  InSwitchTuning t{fraction(node, "efficiency"), node.time("launch_latency"), node.time("step_latency"),
                   static_cast<double>(node.size("chunk_size"))};
  if (t.chunk_bytes <= 0.0) node.child("chunk_size").fail("must be positive");
  if (node.has("max_pieces")) t.max_pieces = static_cast<int>(node.positive_integer("max_pieces"));
  if (node.has("min_chunks_per_piece"))
    t.min_chunks_per_piece = static_cast<int>(node.positive_integer("min_chunks_per_piece"));
  return t;
}

NvlsTreeTuning read_nvls_tree(const ConfigNode& node) {
  node.expect_keys({"efficiency", "launch_latency", "network_step_latency", "chunk_size", "max_chunks", "sources"});
  NvlsTreeTuning t{fraction(node, "efficiency"), node.time("launch_latency"), node.time("network_step_latency"),
                   static_cast<double>(node.size("chunk_size")), static_cast<int>(node.positive_integer("max_chunks"))};
  if (t.chunk_bytes <= 0.0) node.child("chunk_size").fail("must be positive");
  return t;
}

void read_ring(const ConfigNode& ring, CollectiveTuning& t) {
  ring.expect_keys({"launch_latency", "step_latency", "network_step_latency", "protocol_efficiency", "chunk_size",
                    "max_chunks_per_step", "cta_rate", "cta_rate_by_architecture", "ctas_across_nodes", "sources"});
  t.launch_latency = ring.time("launch_latency");
  t.step_latency = ring.time("step_latency");
  t.network_step_latency = ring.time("network_step_latency");
  t.protocol_efficiency = fraction(ring, "protocol_efficiency");
  t.chunk_bytes = static_cast<double>(ring.size("chunk_size"));
  if (t.chunk_bytes <= 0.0) ring.child("chunk_size").fail("must be positive");
  t.max_chunks_per_step = static_cast<int>(ring.positive_integer("max_chunks_per_step"));
  t.cta_bytes_per_s = ring.bandwidth("cta_rate").bytes_per_s;
  t.ctas_across_nodes = static_cast<int>(ring.positive_integer("ctas_across_nodes"));
  if (ring.has("cta_rate_by_architecture")) {
    for (const auto& [architecture, rate] : ring.child("cta_rate_by_architecture").entries())
      t.cta_bytes_per_s_by_architecture[architecture] = rate.as_bandwidth().bytes_per_s;
  }
}

void read_reduce_rates(const ConfigNode& node, CollectiveTuning& t) {
  node.expect_keys({"gpus", "sources"});
  for (const auto& [model, rate] : node.child("gpus").entries())
    t.reduce_bytes_per_s[model] = rate.as_bandwidth().bytes_per_s;
}

void read_tree(const ConfigNode& tree, CollectiveTuning& t) {
  tree.expect_keys({"efficiency", "chunk_size", "channel_rate_by_architecture", "sources"});
  t.tree_efficiency = fraction(tree, "efficiency");
  t.tree_chunk_bytes = static_cast<double>(tree.size("chunk_size"));
  if (t.tree_chunk_bytes <= 0.0) tree.child("chunk_size").fail("must be positive");
  for (const auto& [architecture, rates] : tree.child("channel_rate_by_architecture").entries()) {
    rates.expect_keys({"two_nodes", "more_nodes"});
    t.tree_channel_rate_by_architecture[architecture] = {rates.bandwidth("two_nodes").bytes_per_s,
                                                         rates.bandwidth("more_nodes").bytes_per_s};
  }
}

}  // namespace

ProtocolTuning CollectiveTuning::protocol(Protocol p, ProtocolUse use) const {
  ProtocolTuning t{protocol_efficiency, launch_latency, step_latency, network_step_latency};
  if (p == Protocol::ll) t = ll;
  if (p == Protocol::ll128) t = ll128;
  if (p == Protocol::ll && !use.ll_quarter) t.efficiency = ll_copy_efficiency;
  t.efficiency = std::min(t.efficiency, use.share_cap);
  return t;
}

CollectiveTuning CollectiveTuning::load(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  root.expect_keys({"ring", "protocols", "reduce_rate", "tree", "nvls", "nvls_tree", "sharp", "fast_path"});
  CollectiveTuning t;
  read_ring(root.child("ring"), t);
  const ConfigNode protocols = root.child("protocols");
  protocols.expect_keys({"ll", "ll128"});
  const ConfigNode ll = protocols.child("ll");
  ll.expect_keys(
      {"efficiency", "copy_efficiency", "launch_latency", "nvlink_step_latency", "network_step_latency", "sources"});
  t.ll = read_protocol(ll);
  t.ll_copy_efficiency = fraction(ll, "copy_efficiency");
  const ConfigNode ll128 = protocols.child("ll128");
  ll128.expect_keys({"efficiency", "launch_latency", "nvlink_step_latency", "network_step_latency", "sources"});
  t.ll128 = read_protocol(ll128);
  read_reduce_rates(root.child("reduce_rate"), t);
  read_tree(root.child("tree"), t);
  t.nvls = read_in_switch(root.child("nvls"));
  t.nvls_tree = read_nvls_tree(root.child("nvls_tree"));
  t.sharp = read_in_switch(root.child("sharp"));
  const ConfigNode fast = root.child("fast_path");
  fast.expect_keys({"min_sends", "nvls_tree_min_transfers", "nvls_tree_min_chunks", "sources"});
  t.fast_path_min_sends = static_cast<std::uint64_t>(fast.positive_integer("min_sends"));
  t.fast_path_nvls_tree_min_transfers = static_cast<std::uint64_t>(fast.positive_integer("nvls_tree_min_transfers"));
  t.fast_path_nvls_tree_min_chunks = static_cast<int>(fast.positive_integer("nvls_tree_min_chunks"));
  return t;
}

}  // namespace simctl
