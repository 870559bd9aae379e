#include "workloads/stage_layout.hpp"

#include "workloads/data_parallel_sync.hpp"
#include "workloads/layer_split.hpp"

namespace simctl {
namespace {

double tp_share(std::int64_t count, std::int64_t tensor) {
  return static_cast<double>(count) / static_cast<double>(tensor);
}

ModelUnit embedding_unit(const PassShape& base) {
  ModelUnit u{"embedding", base, 0.0};
  u.shape.first_layer = u.shape.end_layer = 0;
  u.shape.head = false;
  const auto& m = base.model;
  // Vocabulary rows are split over TP ranks; position and token-type rows
  // and the embedding norm are replicated.
  u.parameters =
      tp_share(m.vocab * m.hidden, base.tensor) + static_cast<double>(m.embedding_parameters() - m.vocab * m.hidden);
  return u;
}

// The last stage keeps its own copy of a tied word embedding for the LM head
// (Megatron-LM) unless it also holds the embedding; an untied head is its own
// weight, split over TP ranks by vocabulary. A task head's other weights are
// replicated.
ModelUnit head_unit(const PassShape& base, bool holds_embedding) {
  ModelUnit u{"head", base, 0.0};
  u.shape.first_layer = u.shape.end_layer = 0;
  u.shape.embedding = false;
  const auto& m = base.model;
  const std::int64_t vocab_split = m.head_vocab_parameters();
  u.parameters = static_cast<double>(m.final_norm_parameters() + m.head_parameters() - vocab_split) +
                 tp_share(vocab_split, base.tensor);
  if (m.head_ties_embedding() && !holds_embedding) u.parameters += tp_share(m.vocab * m.hidden, base.tensor);
  return u;
}

ModelUnit layer_unit(const PassShape& base, std::int64_t layer) {
  ModelUnit u{"layer" + std::to_string(layer), base, 0.0};
  u.shape.first_layer = layer;
  u.shape.end_layer = layer + 1;
  u.shape.embedding = u.shape.head = false;
  // Experts are split over EP ranks, then TP-split like an MLP; the rest
  // (norms, attention, router) as a dense block's.
  const auto& m = base.model;
  u.expert_parameters = tp_share(m.experts_in_block() / base.expert * m.expert_parameters(), base.tensor);
  u.parameters = tp_share(m.layer_dense_parameters(), base.tensor) + u.expert_parameters;
  return u;
}

// Each weight is cast to fp8 once per step and kept over its micro-batches
// (TE's is_first_microbatch); weights that ZeRO-3/FSDP gather afresh for
// every micro-batch are cast each time, and, gathered in fp8, as the shard
// each rank casts before the gather (torchtitan's Float8 pre-all-gather).
// Weights held in fp8 (fp8.params) are never cast.
double fp8_weight_cast_share(const WorkloadSpec& spec) {
  if (spec.fp8 && spec.fp8->params) return 0.0;
  if (!shards_weights(spec.strategy)) return 1.0 / static_cast<double>(spec.grad_accum);
  const bool gathered_in_fp8 = spec.fp8 && spec.fp8->param_all_gather;
  return gathered_in_fp8 ? 1.0 / static_cast<double>(spec.parallel.gradient_replicas()) : 1.0;
}

// A unit's trainable parameters under `finetune`: a block's own unless
// frozen, or its adapters; the embedding's and the head's unless frozen.
double trainable_of(const WorkloadSpec& spec, const ModelUnit& u) {
  if (!spec.finetune) return u.parameters;
  const Finetune& f = *spec.finetune;
  const PassShape& s = u.shape;
  if (s.embedding) return f.embedding_trains() ? u.parameters : 0.0;
  if (s.head) return f.head_trains() ? u.parameters : 0.0;
  if (!f.runs_backward(s.first_layer)) return 0.0;
  return f.adapters() ? adapter_parameters(spec.model, f, spec.parallel.tensor) : u.parameters;
}

}  // namespace

double StageChunk::parameters() const {
  double sum = 0.0;
  for (const auto& u : units) sum += u.parameters;
  return sum;
}

double StageChunk::trainable() const {
  double sum = 0.0;
  for (const auto& u : units) sum += u.trainable;
  return sum;
}

double StageChunk::expert_parameters() const {
  double sum = 0.0;
  for (const auto& u : units) sum += u.expert_parameters;
  return sum;
}

PassShape plan_shape(const WorkloadSpec& spec) {
  PassShape p = whole_model_shape(spec.model, spec.micro_batch, spec.precision, spec.ddp.grad_dtype);
  p.recompute = spec.recompute;
  p.recompute_blocks = checkpointed_blocks(spec);
  p.attention = spec.attention;
  p.dropout = spec.dropout;
  p.tensor = spec.parallel.tensor;
  p.sequence = spec.parallel.sequence && spec.parallel.tensor > 1;
  p.tp_comm_overlap = spec.parallel.tp_comm_overlap;
  p.async_tp = spec.parallel.async_tp;
  p.tp_async_backward = spec.tp_async_backward;
  p.tp_sequence_dim_copies = spec.tp_sequence_dim_copies && spec.micro_batch > 1;
  p.expert = spec.parallel.expert;
  p.context = spec.parallel.context;
  p.context_algorithm = spec.parallel.context_algorithm;
  p.kernel_time_factor = spec.kernel_time_factor;
  p.loss_in_fp32 = spec.loss_in_fp32;
  p.eager_op_chains = spec.eager_op_chains && !spec.compile;
  p.fp8 = spec.fp8;
  p.finetune = spec.finetune;
  p.fp8_weight_cast_share = fp8_weight_cast_share(spec);
  return p;
}

StageChunk stage_chunk(const WorkloadSpec& spec, std::int64_t stage, std::int64_t chunk) {
  const std::int64_t chunks = spec.parallel.pipeline * spec.parallel.virtual_stages;
  StageChunk c;
  c.virtual_stage = chunk * spec.parallel.pipeline + stage;
  c.first = c.virtual_stage == 0;
  c.last = c.virtual_stage == chunks - 1;
  c.layers = chunk_block_count(spec, c.virtual_stage);
  const PassShape base = plan_shape(spec);
  if (c.first) c.units.push_back(embedding_unit(base));
  const std::int64_t first_layer = chunk_first_block(spec, c.virtual_stage);
  for (std::int64_t l = first_layer; l < first_layer + c.layers; ++l) c.units.push_back(layer_unit(base, l));
  if (c.last) c.units.push_back(head_unit(base, c.first));
  for (auto& u : c.units) u.trainable = trainable_of(spec, u);
  return c;
}

double stage_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  double sum = 0.0;
  for (std::int64_t chunk = 0; chunk < spec.parallel.virtual_stages; ++chunk) {
    sum += stage_chunk(spec, stage, chunk).parameters();
  }
  return sum;
}

double stage_trainable_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  double sum = 0.0;
  for (std::int64_t chunk = 0; chunk < spec.parallel.virtual_stages; ++chunk) {
    sum += stage_chunk(spec, stage, chunk).trainable();
  }
  return sum;
}

std::int64_t stage_backward_layers(const WorkloadSpec& spec, std::int64_t stage) {
  std::int64_t count = 0;
  for (std::int64_t chunk = 0; chunk < spec.parallel.virtual_stages; ++chunk) {
    for (const auto& u : stage_chunk(spec, stage, chunk).units) {
      const bool block = !u.shape.embedding && !u.shape.head;
      if (block && (!spec.finetune || spec.finetune->runs_backward(u.shape.first_layer))) ++count;
    }
  }
  return count;
}

double stage_expert_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  double sum = 0.0;
  for (std::int64_t chunk = 0; chunk < spec.parallel.virtual_stages; ++chunk) {
    sum += stage_chunk(spec, stage, chunk).expert_parameters();
  }
  return sum;
}

}  // namespace simctl
