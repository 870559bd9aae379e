#pragma once
// The parallel plans a search tries for one model on one set of GPUs: every
// tensor, pipeline and data-parallel split of the base config's world size,
// with the schedule, micro-batch, sequence parallelism, activation
// recompute, data-parallel strategy and expert parallelism on top. The
// global batch is the user's recipe and stays fixed; a plan whose
// micro_batch * data does not divide it is skipped (and counted).
//
// A plan is written into the base config as ConfigOverrides on
// `workload.parallel.*`, `workload.micro_batch`,
// `workload.activation_recompute` and `workload.strategy`, so the loader
// checks it exactly as it checks a config a user wrote.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_overrides.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

struct Plan {
  std::int64_t tensor = 1;
  std::int64_t pipeline = 1;
  std::int64_t data = 1;
  // The schedule: interleaved 1F1B with virtual_stages > 1, else 1F1B (a
  // search never tries GPipe; a base config may run it).
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t virtual_stages = 1;
  std::int64_t micro_batch = 1;
  bool sequence = false;
  ActivationRecompute recompute = ActivationRecompute::none;
  Strategy strategy = Strategy::ddp;
  std::int64_t expert = 1;
  // Blocks of each virtual stage where pipeline * virtual_stages does not
  // divide the layers (workloads/layer_split.hpp, balanced_stage_layers);
  // empty for the even split.
  std::vector<std::int64_t> stage_layers;
};

// The plan a workload runs (its schedule read from virtual_stages).
Plan plan_of(const WorkloadSpec& workload);

// "tp=8 pp=8 dp=1 v=3 mb=1 sp=on recompute=selective strategy=ddp ep=1"
// (v=gpipe for a GPipe schedule), with " split=15..16" (the fewest and most
// blocks of a chunk) after an uneven split: one line, every field; plans
// compare (and tie-break) by it.
std::string plan_text(const Plan& plan);

// "3", or "gpipe" for a GPipe schedule: the table's v column.
std::string virtual_stages_text(const Plan& plan);

// The plan as overrides of the base config's workload, each blamed on
// `origin` (a plan search names itself there).
ConfigOverrides plan_overrides(const Plan& plan, const SourceLocation& origin);

struct PlanSpace {
  std::vector<Plan> plans;         // in enumeration order (deterministic)
  std::int64_t skipped_batch = 0;  // micro_batch * data does not divide the global batch
  std::int64_t max_tensor = 1;     // the cap on TP: GPUs per node
};

// Every plan over `world` GPUs for `base`'s model and global batch, with
// tensor parallelism at most `gpus_per_node` (a TP group's all-reduces per
// layer need NVLink-class bandwidth, so it stays inside a node, as
// Megatron-LM advises). TP divides the heads, key/value heads and MLP width
// (and the experts' width); pipeline * virtual_stages divides the layers,
// or, for a pipeline degree that does not divide them (Llama 3 405B's 126
// blocks over 8 or 16 stages), the blocks are split as evenly as whole
// blocks go with the short chunks at the ends (balanced_stage_layers), at
// v = 1 and 2; interleaving needs pipeline >= 3 and micro-batches per step a
// multiple of pipeline; sequence parallelism is tried on and off where TP > 1 (on only
// for a mixture of experts, which needs it); ZeRO stages and FSDP (= zero3
// here) only where DP > 1 (at DP 1 they are all DDP); zero3 not with
// expert parallelism; EP over the divisors of the experts that divide DP.
// Micro-batches are the powers of two up to the per-replica batch (and the
// base's own).
PlanSpace enumerate_plans(const WorkloadSpec& base, std::int64_t world, std::int64_t gpus_per_node);

}  // namespace simctl
