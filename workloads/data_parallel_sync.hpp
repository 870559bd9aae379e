#pragma once
// The data-parallel side of a hybrid plan, for one rank: how gradients (and,
// for ZeRO-3/FSDP, weights) move in the rank's data-parallel group.
//   ddp:   gradients all-reduced once per step, after the last micro-batch's
//          backward, in buckets (launched as they fill if ddp.overlap, else
//          all at the end, as Megatron-LM's 2021-22 DDP does).
//   zero1: the same buckets reduce-scattered; each rank updates its 1/d
//          shard and the updated weights are all-gathered.
//   zero2: gradients are sharded, so each micro-batch's gradients are
//          reduce-scattered per unit as backward produces them.
//   zero3, fsdp: weights are sharded too: each unit's weights are
//          all-gathered before its forward and again before its backward
//          (prefetched one unit ahead), gradients reduce-scattered per unit.
#include <string>
#include <vector>

#include "workloads/rank_ops.hpp"
#include "workloads/stage_layout.hpp"

namespace simctl {

class DataParallelSync {
 public:
  DataParallelSync(const WorkloadSpec& spec, std::uint32_t dp_group);

  void before_unit(RankOps& ops, const ModelUnit& unit, const std::string& prefix, OpPhase phase);
  void after_unit_backward(RankOps& ops, const ModelUnit& unit, const std::string& prefix, bool last_micro_batch);
  // Launches what is still buffered once the stage's backward passes are done.
  void finish_backward(RankOps& ops);
  void after_optimizer(RankOps& ops, double stage_parameters, OpIndex optimizer);

  // The ops the optimizer must wait for.
  const std::vector<OpIndex>& gradient_ops() const { return gradient_ops_; }
  // Parameters whose optimizer state this rank updates, of those it holds.
  double optimizer_share() const;

 private:
  OpIndex collective(RankOps& ops, std::string name, OpPhase phase, CollectiveOp op, double bytes,
                     std::vector<OpIndex> deps);
  void flush_bucket(RankOps& ops);

  const WorkloadSpec& spec_;
  std::uint32_t group_;
  bool active_;  // more than one data-parallel replica
  double bucket_bytes_ = 0.0;
  int buckets_ = 0;
  std::optional<OpIndex> prefetch_anchor_;
  std::vector<OpIndex> gradient_ops_;
};

bool shards_weights(Strategy s);
bool shards_gradients(Strategy s);
bool shards_optimizer(Strategy s);

}  // namespace simctl
