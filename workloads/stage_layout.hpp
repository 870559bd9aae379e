#pragma once
// Which part of the model a pipeline stage's chunk holds, cut into the units
// that ZeRO-3/FSDP gather one at a time and that gradient buckets collect: the
// embedding, each block, the head. Parameter counts are per tensor-parallel
// rank. Shared by the trace builder and the memory estimator.
#include <string>
#include <vector>

#include "workloads/transformer_ops.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

struct ModelUnit {
  std::string name;
  PassShape shape;                 // the ops of this unit alone
  double parameters = 0.0;         // held by one TP rank (one EP rank's experts included)
  double expert_parameters = 0.0;  // of those, the experts' (synced over the expert-data-parallel group)
  // Of those plus any adapters, what trains (has gradients and optimizer
  // states): all of `parameters` unless `finetune` freezes some.
  double trainable = 0.0;
};

struct StageChunk {
  std::int64_t virtual_stage = 0;  // chunk * pipeline + stage
  bool first = false;              // holds the embedding
  bool last = false;               // holds the head and the loss
  std::int64_t layers = 0;
  std::vector<ModelUnit> units;  // forward order

  double parameters() const;
  double expert_parameters() const;
  double trainable() const;
};

// The pass shape every unit starts from: model, micro-batch, dtypes, TP/SP,
// recompute and attention kernel.
PassShape plan_shape(const WorkloadSpec& spec);

StageChunk stage_chunk(const WorkloadSpec& spec, std::int64_t stage, std::int64_t chunk);

// Parameters one rank of `stage` holds (all its chunks), before ZeRO sharding.
double stage_parameters(const WorkloadSpec& spec, std::int64_t stage);
// Of those, the experts' (experts / expert of each MoE block, TP-split).
double stage_expert_parameters(const WorkloadSpec& spec, std::int64_t stage);
// What trains on one rank of `stage`: its parameters, or under `finetune`
// the unfrozen ones and the adapters.
double stage_trainable_parameters(const WorkloadSpec& spec, std::int64_t stage);
// Blocks of `stage` (all its chunks) that run a backward pass.
std::int64_t stage_backward_layers(const WorkloadSpec& spec, std::int64_t stage);

}  // namespace simctl
