#include "workloads/stage_layout.hpp"

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
  // Vocabulary rows are split over TP ranks; position rows are replicated.
  u.parameters = tp_share(m.vocab * m.hidden, base.tensor) + static_cast<double>(m.position_parameters());
  return u;
}

// The last stage keeps its own copy of a tied word embedding for the LM head
// (Megatron-LM) unless it also holds the embedding; an untied head is its own
// weight, split over TP ranks by vocabulary.
ModelUnit head_unit(const PassShape& base, bool holds_embedding) {
  ModelUnit u{"head", base, 0.0};
  u.shape.first_layer = u.shape.end_layer = 0;
  u.shape.embedding = false;
  const auto& m = base.model;
  u.parameters = static_cast<double>(m.final_norm_parameters());
  if (!m.tied_embeddings || !holds_embedding) u.parameters += tp_share(m.vocab * m.hidden, base.tensor);
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

}  // namespace

double StageChunk::parameters() const {
  double sum = 0.0;
  for (const auto& u : units) sum += u.parameters;
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
  p.attention = spec.attention;
  p.dropout = spec.dropout;
  p.tensor = spec.parallel.tensor;
  p.sequence = spec.parallel.sequence && spec.parallel.tensor > 1;
  p.tp_comm_overlap = spec.parallel.tp_comm_overlap;
  p.expert = spec.parallel.expert;
  p.kernel_time_factor = spec.kernel_time_factor;
  return p;
}

StageChunk stage_chunk(const WorkloadSpec& spec, std::int64_t stage, std::int64_t chunk) {
  const std::int64_t chunks = spec.parallel.pipeline * spec.parallel.virtual_stages;
  StageChunk c;
  c.virtual_stage = chunk * spec.parallel.pipeline + stage;
  c.first = c.virtual_stage == 0;
  c.last = c.virtual_stage == chunks - 1;
  c.layers = spec.model.layers / chunks;
  const PassShape base = plan_shape(spec);
  if (c.first) c.units.push_back(embedding_unit(base));
  const std::int64_t first_layer = c.virtual_stage * c.layers;
  for (std::int64_t l = first_layer; l < first_layer + c.layers; ++l) c.units.push_back(layer_unit(base, l));
  if (c.last) c.units.push_back(head_unit(base, c.first));
  return c;
}

double stage_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  double sum = 0.0;
  for (std::int64_t chunk = 0; chunk < spec.parallel.virtual_stages; ++chunk) {
    sum += stage_chunk(spec, stage, chunk).parameters();
  }
  return sum;
}

double stage_expert_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  double sum = 0.0;
  for (std::int64_t chunk = 0; chunk < spec.parallel.virtual_stages; ++chunk) {
    sum += stage_chunk(spec, stage, chunk).expert_parameters();
  }
  return sum;
}

}  // namespace simctl
