#include "workloads/trace_size.hpp"

#include <algorithm>
#include <cstdio>

namespace simctl {
namespace {

// The layers one rank runs: a pipeline stage's share of a transformer, or
// the whole of an MLP, CNN or LSTM (data parallel only).
double layers_per_rank(const WorkloadSpec& w) {
  if (w.mlp) return static_cast<double>(w.mlp->layers());
  if (w.cnn) return static_cast<double>(w.cnn->layers.size());
  if (w.lstm) return static_cast<double>(w.lstm->layers);
  return static_cast<double>(w.model.layers) / static_cast<double>(std::max<std::int64_t>(1, w.parallel.pipeline));
}

}  // namespace

double trace_ops_lower_bound(const WorkloadSpec& w, std::int64_t ranks) {
  return static_cast<double>(ranks) * static_cast<double>(std::max<std::int64_t>(1, w.grad_accum)) *
         layers_per_rank(w) * kMinOpsPerLayerMicroBatch;
}

std::string describe_trace_too_large(const WorkloadSpec& w, std::int64_t ranks) {
  const double ops = trace_ops_lower_bound(w, ranks);
  if (ops <= kMaxTraceOps) return "";
  char text[320];
  std::snprintf(text, sizeof text,
                "the trace would hold at least %.3g ops (%lld ranks x %lld micro-batches x %.0f layers per rank x "
                "%.0f), more than the %.0f ops simctl builds (about 200 bytes each); use fewer ranks, fewer "
                "micro-batches (a smaller global_batch) or fewer layers",
                ops, static_cast<long long>(ranks), static_cast<long long>(std::max<std::int64_t>(1, w.grad_accum)),
                layers_per_rank(w), kMinOpsPerLayerMicroBatch, kMaxTraceOps);
  return text;
}

}  // namespace simctl
