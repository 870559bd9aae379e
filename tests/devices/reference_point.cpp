#include "tests/devices/reference_point.hpp"

#include "sim/config/config_node.hpp"
#include "sim/config/data_root.hpp"
#include "tests/devices/gemm_work.hpp"

namespace simctl::testing {
namespace {

ComputeWork gemm_work(const ConfigNode& point) {
  ConfigNode shape = point.child("shape");
  return testing::gemm_work(shape.integer("m"), shape.integer("n"), shape.integer("k"),
                            *dtype_from_string(point.string("dtype")));
}

// FlashAttention-2 benchmark convention (benchmarks/benchmark_flash_attention.py):
// one forward (4 * tokens * heads * seq * head_dim FLOPs) and one backward
// (2.5 times that), non-causal, priced as the two kernels they are.
ComputeWork attention_work(const ConfigNode& point, bool backward) {
  ConfigNode shape = point.child("attention");
  const std::int64_t seq = shape.integer("seq_len"), head_dim = shape.integer("head_dim");
  const std::int64_t heads = shape.integer("hidden") / head_dim, batch = 16384 / seq;
  ComputeWork work;
  work.kind = ComputeKind::attention;
  work.attention_kernel = FusedAttention::flash2;
  work.backward = backward;
  work.dtype = *dtype_from_string(point.string("dtype"));
  work.m = seq;
  work.n = seq;
  work.k = head_dim;
  work.batch = batch * heads;
  const double tokens_x_heads = static_cast<double>(batch * heads * seq);
  work.flops = (backward ? 2.5 : 1.0) * 4.0 * tokens_x_heads * static_cast<double>(seq * head_dim);
  // Q, K, V, O read or written in forward; Q, K, V, O, dO read and dQ, dK, dV written in backward.
  work.memory_bytes =
      (backward ? 8.0 : 4.0) * tokens_x_heads * static_cast<double>(head_dim) * bytes_per_element(work.dtype);
  return work;
}

// BabelStream moves doubles; the work is priced by its bytes alone.
ComputeWork stream_work(const ConfigNode& point) {
  ComputeWork work;
  work.kind = ComputeKind::elementwise;
  work.dtype = DType::fp32;
  const double elements = static_cast<double>(point.integer("elements"));
  work.memory_bytes = static_cast<double>(point.integer("arrays")) * elements * 8.0;
  work.flops = elements;  // at most one or two per element; irrelevant at this intensity
  return work;
}

}  // namespace

std::vector<ReferencePoint> load_reference_points() {
  auto root = ConfigNode::load_file(data_root() + "/models/devices/measured/reference_points.yaml");
  std::vector<ReferencePoint> points;
  for (const ConfigNode& node : root.child("points").elements()) {
    ReferencePoint p;
    p.id = node.string("id");
    p.gpu = node.string("gpu");
    const std::string kind = node.choice("kind", {"gemm", "attention", "stream"});
    p.work = kind == "gemm" ? gemm_work(node) : kind == "attention" ? attention_work(node, false) : stream_work(node);
    if (kind == "attention") p.backward_work = attention_work(node, true);
    // Timed back to back for seconds at the clock the power cap holds (AMD's
    // MAF runs), not in a short burst: priced with the sustained slowdown.
    p.work.sustained = node.bool_or("sustained", false);
    p.is_bandwidth = kind == "stream";
    p.measured = p.is_bandwidth ? node.bandwidth("measured").bytes_per_s : node.flop_rate("measured").flops_per_s;
    p.tolerance = node.number("tolerance");
    p.matched = node.bool_or("matched", true);
    p.why = node.string_or("why", "");
    points.push_back(p);
  }
  return points;
}

}  // namespace simctl::testing
