#pragma once
// The data-parallel side of a hybrid plan, for one rank: how gradients (and,
// for ZeRO-3/FSDP, weights) move in the rank's data-parallel group.
//   ddp:   gradients all-reduced once per step, after the last micro-batch's
//          backward, in buckets (launched as they fill if ddp.overlap, else
//          all at the end, as Megatron-LM's 2021-22 DDP does).
//   zero1: the same buckets reduce-scattered; each rank updates its 1/d
//          shard and the updated weights are all-gathered: at once after
//          the optimizer, or with ddp.overlap_param_gather (Megatron-Core's
//          distributed optimizer) bucket by bucket, issued at the start of
//          the step on the prefetch stream, each unit's first forward (the
//          first micro-batch's) waiting for its bucket. Only the first
//          micro-batch's forward of each chunk can hide them, as in
//          Megatron-Core; with gradient buckets (ddp.overlap, Megatron's
//          overlap_grad_reduce) only the last micro-batch's backward hides
//          the reduce-scatters.
//   zero2: gradients are sharded, so each micro-batch's gradients are
//          reduce-scattered per unit as backward produces them.
//   zero3, fsdp: weights are sharded too: each unit's weights are
//          all-gathered before its forward and again before its backward
//          (prefetched one unit ahead), gradients reduce-scattered per unit.
//   fsdp under pipeline parallelism (PyTorch FSDP2 in torch.distributed.
//          pipelining, as torchtitan runs it): each unit is gathered once,
//          at its first forward, and stays gathered through every
//          micro-batch (torchtitan's reshard_after_forward = not
//          pp_enabled; the stage sets reshard_after_backward False), and
//          its gradients accumulate unsharded and are reduce-scattered once,
//          after the stage's last backward (set_requires_gradient_sync
//          False, then _post_backward): keeps_gathered().
// Under expert parallelism (expert > 1) the experts' parameters are held by
// data / expert ranks only, so their gradients (and ZeRO's shards of them)
// go over the expert-data-parallel group, in buckets of their own, as
// Megatron-core's DDP keeps expert and dense buckets apart.
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "workloads/rank_ops.hpp"
#include "workloads/stage_layout.hpp"

namespace simctl {

class DataParallelSync {
 public:
  // `expert_dp_group` is used only when the plan has expert > 1.
  DataParallelSync(const WorkloadSpec& spec, std::uint32_t dp_group, std::uint32_t expert_dp_group = 0);

  // With overlap_param_gather: issues the all-gathers of `chunk`'s updated
  // weights, bucket by bucket in forward order (call once per chunk, before
  // any forward, in the order the chunks first run).
  void start_param_gather(RankOps& ops, const StageChunk& chunk);
  void before_unit(RankOps& ops, const ModelUnit& unit, const std::string& prefix, OpPhase phase);
  void after_unit_backward(RankOps& ops, const ModelUnit& unit, const std::string& prefix, bool last_micro_batch);
  // Launches what is still buffered once the stage's backward passes are done.
  void finish_backward(RankOps& ops);
  // `parameters` held by the rank of pipeline `stage`, `expert_parameters` of them the experts'.
  void after_optimizer(RankOps& ops, std::int64_t stage, double parameters, double expert_parameters,
                       OpIndex optimizer);

  // FSDP under pipeline parallelism: units gathered once per step, gradients
  // reduced once (see above).
  bool keeps_gathered() const;

  // The ops the optimizer must wait for.
  const std::vector<OpIndex>& gradient_ops() const { return gradient_ops_; }
  // Parameters whose optimizer state this rank updates, of those it holds.
  double optimizer_parameters(double parameters, double expert_parameters) const;

 private:
  // The ranks one kind of parameter is replicated over, and its open bucket.
  struct Lane {
    std::uint32_t group = 0;
    std::int64_t replicas = 1;
    std::string prefix;  // of its op names: "" for dense, "experts." for experts
    double bucket_bytes = 0.0;
    int buckets = 0;
    bool active() const { return replicas > 1; }
  };

  OpIndex collective(RankOps& ops, const Lane& lane, std::string name, OpPhase phase, CollectiveOp op, double bytes,
                     std::vector<OpIndex> deps);
  void flush_bucket(RankOps& ops, Lane& lane);
  void unit_gradients(RankOps& ops, Lane& lane, double parameters, const std::string& name, bool last_micro_batch);
  // Dense and expert parts of `parameters`; without EP all are dense.
  double dense_part(double parameters, double expert_parameters) const {
    return split_ ? parameters - expert_parameters : parameters;
  }

  // Buckets of updated weights being filled for the step-start gathers.
  struct GatherBucket {
    double bytes = 0.0;
    std::vector<std::string> units;
  };
  void flush_gather(RankOps& ops, Lane& lane, GatherBucket& bucket);
  bool gathers_params_ahead() const;

  const WorkloadSpec& spec_;
  bool split_;  // expert parallelism: experts sync over their own group
  Lane dense_;
  Lane experts_;
  std::optional<OpIndex> prefetch_anchor_;
  std::vector<OpIndex> gradient_ops_;
  std::map<std::string, std::vector<OpIndex>> param_gathers_;  // unit -> its buckets' gathers, until its first forward
  int gather_buckets_ = 0;
  std::set<std::string> gathered_units_;  // keeps_gathered: units gathered this step
  std::vector<std::pair<std::string, double>>
      held_grads_;  // keeps_gathered: (unit, gradient bytes) to reduce at the end
};

bool shards_weights(Strategy s);
// Bytes ZeRO-3/FSDP all-gather for `unit`: its weights in the workload's
// precision, its linear layers' in fp8 with fp8 `param_all_gather` or
// `params`.
double gathered_weight_bytes(const WorkloadSpec& spec, const ModelUnit& unit);

// Linear-layer parameters one rank of pipeline `stage` holds: its blocks'
// QKV, attention output and MLP weights, on its TP shard.
double stage_linear_parameters(const WorkloadSpec& spec, std::int64_t stage);
bool shards_gradients(Strategy s);
bool shards_optimizer(Strategy s);

}  // namespace simctl
