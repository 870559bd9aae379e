#include "workloads/inference_memory.hpp"

#include <algorithm>

#include "workloads/stage_layout.hpp"

namespace simctl {
namespace {

constexpr double kKeyAndValue = 2.0;

double layers_per_stage(const WorkloadSpec& spec) {
  return static_cast<double>(spec.model.layers / spec.parallel.pipeline);
}

// One decode step of one layer on a TP rank: the residual input (whole
// hidden), Q/K/V and the attention output (split by t), the MLP's up/gate
// outputs and their product (split by t), and the per-head scores over the
// cached context that an unfused decode attention materialises.
double layer_working_set_bytes(const WorkloadSpec& spec) {
  const TransformerSpec& m = spec.model;
  const double t = static_cast<double>(spec.parallel.tensor);
  const double batch = static_cast<double>(spec.inference->batch);
  const double sharded_width =
      static_cast<double>(m.qkv_width() + m.hidden + m.mlp_up_width() + (m.gated_mlp ? m.ffn : 0)) / t;
  const double per_token = static_cast<double>(m.hidden) + sharded_width;
  const double scores = static_cast<double>(m.heads) / t * static_cast<double>(spec.inference->context_tokens);
  return batch * (per_token + scores) * bytes_per_element(spec.precision);
}

double logits_bytes(const WorkloadSpec& spec) {
  const double vocab_per_rank = static_cast<double>(spec.model.vocab) / static_cast<double>(spec.parallel.tensor);
  return static_cast<double>(spec.inference->batch) * vocab_per_rank * bytes_per_element(spec.precision);
}

StageMemory inference_stage(const WorkloadSpec& spec, std::int64_t stage) {
  StageMemory row{stage, "stage " + std::to_string(stage), {}, 1, {}};
  const bool last = stage == spec.parallel.pipeline - 1;
  const double temporary = std::max(last ? logits_bytes(spec) : 0.0, layer_working_set_bytes(spec));
  row.items = {
      {"weights", stage_parameters(spec, stage) * bytes_per_element(spec.precision)},
      {"kv_cache", kv_cache_bytes(spec)},
      {"activations/temporary", temporary},
  };
  return row;
}

}  // namespace

double kv_cache_bytes(const WorkloadSpec& spec) {
  const TransformerSpec& m = spec.model;
  const InferenceSpec& inf = *spec.inference;
  const double kv_heads_per_rank = static_cast<double>(m.kv_heads / spec.parallel.tensor);
  const double per_layer_token = kKeyAndValue * kv_heads_per_rank * static_cast<double>(m.head_dim());
  return layers_per_stage(spec) * per_layer_token * static_cast<double>(inf.context_tokens * inf.batch) *
         bytes_per_element(inf.kv_cache_dtype);
}

std::vector<StageMemory> estimate_inference_memory(const WorkloadSpec& spec) {
  std::vector<StageMemory> rows;
  for (std::int64_t s = 0; s < spec.parallel.pipeline; ++s) rows.push_back(inference_stage(spec, s));
  return rows;
}

}  // namespace simctl
