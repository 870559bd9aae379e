#include "workloads/tp_overlap.hpp"

namespace simctl {
namespace {

// Chunk `c` of `chunks` of a GEMM split by output rows (m): each chunk reads
// the whole weight and 1/chunks of the input and output.
ComputeWork row_chunk(const ComputeWork& gemm, std::int64_t chunks, int comm_sms) {
  const std::int64_t rows = (gemm.m + chunks - 1) / chunks;
  const double share = static_cast<double>(rows) / static_cast<double>(gemm.m);
  const double weight_bytes = static_cast<double>(gemm.k * gemm.n) * bytes_per_element(gemm.dtype);
  ComputeWork chunk = gemm;
  chunk.m = rows;
  chunk.flops = gemm.flops * share;
  chunk.memory_bytes = (gemm.memory_bytes - weight_bytes) * share + weight_bytes;
  chunk.comm_sms = comm_sms;
  return chunk;
}

std::string chunk_name(const std::string& base, std::int64_t c) { return base + ".chunk" + std::to_string(c); }

// AsyncTP's fused matmul reduce-scatter: each peer's row chunk is computed
// and sent to it; the rank's own chunk comes last, then the sum of the tp
// partial shards (read tp, write one, in the activations' dtype).
void async_gemm_then_scatter(const PassGeometry& g, const std::string& gemm_name, const std::string& scatter_name,
                             OpPhase phase, const ComputeWork& gemm, OpList& out) {
  const std::int64_t t = g.p.tensor;
  const double shard_bytes = g.activation_bytes() / static_cast<double>(t);
  const std::size_t after_first = out.size() + 1;
  for (std::int64_t c = 0; c + 1 < t; ++c) {
    out.compute(chunk_name(gemm_name, c), phase, row_chunk(gemm, t, 0));
    // Its receive feeds the sum: the compute op after the chunks still to run.
    out.ring_step(scatter_name + ".step" + std::to_string(c + 1), phase, shard_bytes, static_cast<int>(t - 1 - c));
  }
  out.compute(chunk_name(gemm_name, t - 1), phase, row_chunk(gemm, t, 0));
  const double partials = static_cast<double>(t);
  out.compute(scatter_name + ".sum_partials", phase,
              streaming_work(ComputeKind::elementwise, g.p.dtype, g.sequence_hidden_elements(), partials - 1.0,
                             partials + 1.0));
  out.issued_with_previous_from(after_first);
}

}  // namespace

bool userbuffers_overlap(const PassGeometry& g) { return g.p.tp_comm_overlap && g.tensor_parallel() && g.p.sequence; }
bool async_tp_overlap(const PassGeometry& g) { return g.p.async_tp && g.tensor_parallel() && g.p.sequence; }
bool overlaps_tp_comm(const PassGeometry& g) { return userbuffers_overlap(g) || async_tp_overlap(g); }

void gather_then_gemm(const PassGeometry& g, const std::string& gather_name, const std::string& gemm_name,
                      OpPhase phase, const ComputeWork& gemm, double gathered_bytes, OpList& out) {
  if (!overlaps_tp_comm(g)) {
    if (g.tensor_parallel() && g.p.sequence) out.comm(gather_name, phase, CollectiveOp::all_gather, gathered_bytes);
    out.compute(gemm_name, phase, gemm);
    return;
  }
  // Ring exchange: step k (1 … t-1) passes one shard (activation/t bytes)
  // to the next TP rank and brings one from the previous, copy engine to
  // copy engine; chunk k computes on the shard step k brought. AsyncTP's
  // copies pull each peer's shard instead, which loads the switch alike,
  // after the rank has copied its own shard into its symmetric buffer.
  const std::int64_t t = g.p.tensor;
  const double shard_bytes = gathered_bytes / static_cast<double>(t);
  const std::size_t after_first = out.size() + 1;
  if (async_tp_overlap(g)) out.compute(gather_name + ".to_symmetric", phase, byte_stream(shard_bytes, 2.0));
  for (std::int64_t k = 1; k < t; ++k) {
    out.ring_step(gather_name + ".step" + std::to_string(k), phase, shard_bytes, static_cast<int>(k));
  }
  for (std::int64_t c = 0; c < t; ++c) out.compute(chunk_name(gemm_name, c), phase, row_chunk(gemm, t, 0));
  out.issued_with_previous_from(after_first);
}

void gemm_then_scatter(const PassGeometry& g, const std::string& gemm_name, const std::string& scatter_name,
                       OpPhase phase, const ComputeWork& gemm, OpList& out) {
  if (!overlaps_tp_comm(g)) {
    out.compute(gemm_name, phase, gemm);
    if (g.tensor_parallel()) {
      const CollectiveOp op = g.p.sequence ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
      out.comm(scatter_name, phase, op, g.activation_bytes());
    }
    return;
  }
  if (async_tp_overlap(g)) {
    async_gemm_then_scatter(g, gemm_name, scatter_name, phase, gemm, out);
    return;
  }
  // Pipeline: chunk c's rows are reduce-scattered while chunk c+1 computes;
  // the op after the GEMM waits for the last one.
  const std::int64_t n = kUserbuffersPipelineSplits;
  const double chunk_bytes = g.activation_bytes() / static_cast<double>(n);
  const std::size_t after_first = out.size() + 1;
  for (std::int64_t c = 0; c < n; ++c) {
    out.compute(chunk_name(gemm_name, c), phase, row_chunk(gemm, n, kUserbuffersCommSms));
    out.comm(chunk_name(scatter_name, c), phase, CollectiveOp::reduce_scatter, chunk_bytes, static_cast<int>(n - 1 - c),
             ModelGroup::tensor, true);
  }
  out.issued_with_previous_from(after_first);
}

ComputeWork beside_bulk_comm(const PassGeometry& g, ComputeWork gemm) {
  if (userbuffers_overlap(g)) gemm.comm_sms = kUserbuffersCommSms;
  return gemm;
}

}  // namespace simctl
