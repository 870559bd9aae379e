#include "models/network/collective_tuning.hpp"

#include "sim/config/config_node.hpp"

namespace simctl {

CollectiveTuning CollectiveTuning::load(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  root.expect_keys({"ring"});
  const ConfigNode ring = root.child("ring");
  ring.expect_keys(
      {"launch_latency", "step_latency", "protocol_efficiency", "chunk_size", "max_chunks_per_step", "sources"});
  CollectiveTuning t;
  t.launch_latency = ring.time("launch_latency");
  t.step_latency = ring.time("step_latency");
  t.protocol_efficiency = ring.number("protocol_efficiency");
  if (t.protocol_efficiency <= 0.0 || t.protocol_efficiency > 1.0) {
    ring.child("protocol_efficiency").fail("must be in (0, 1]");
  }
  t.chunk_bytes = static_cast<double>(ring.size("chunk_size"));
  if (t.chunk_bytes <= 0.0) ring.child("chunk_size").fail("must be positive");
  t.max_chunks_per_step = static_cast<int>(ring.positive_integer("max_chunks_per_step"));
  return t;
}

}  // namespace simctl
