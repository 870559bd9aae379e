#include "workloads/data_parallel_sync.hpp"

namespace simctl {

bool shards_weights(Strategy s) { return s == Strategy::zero3 || s == Strategy::fsdp; }
bool shards_gradients(Strategy s) { return s == Strategy::zero2 || shards_weights(s); }
bool shards_optimizer(Strategy s) { return s == Strategy::zero1 || shards_gradients(s); }

DataParallelSync::DataParallelSync(const WorkloadSpec& spec, std::uint32_t dp_group)
    : spec_(spec), group_(dp_group), active_(spec.parallel.data > 1) {}

OpIndex DataParallelSync::collective(RankOps& ops, std::string name, OpPhase phase, CollectiveOp op, double bytes,
                                     std::vector<OpIndex> deps) {
  CollectiveCall call{op, group_, bytes, CommDimension::data};
  return ops.other(Op{std::move(name), phase, Stream::communication, std::move(deps), call}, std::nullopt);
}

void DataParallelSync::before_unit(RankOps& ops, const ModelUnit& unit, const std::string& prefix, OpPhase phase) {
  if (!active_ || !shards_weights(spec_.strategy)) return;
  // Gather this unit while the previous one computes, not earlier: FSDP's
  // prefetch keeps one unit in flight.
  std::vector<OpIndex> deps;
  if (prefetch_anchor_) deps.push_back(*prefetch_anchor_);
  prefetch_anchor_ = ops.last_compute();
  const double bytes = unit.parameters * bytes_per_element(spec_.precision);
  const std::string what = phase == OpPhase::forward ? ".weights.all_gather" : ".weights.regather";
  CollectiveCall call{CollectiveOp::all_gather, group_, bytes, CommDimension::data};
  ops.other(Op{prefix + unit.name + what, phase, Stream::communication, std::move(deps), call}, 0);
}

void DataParallelSync::after_unit_backward(RankOps& ops, const ModelUnit& unit, const std::string& prefix,
                                           bool last_micro_batch) {
  if (!active_) return;
  const double bytes = unit.parameters * bytes_per_element(spec_.ddp.grad_dtype);
  if (shards_gradients(spec_.strategy)) {
    gradient_ops_.push_back(collective(ops, prefix + unit.name + ".grads.reduce_scatter", OpPhase::gradient_sync,
                                       CollectiveOp::reduce_scatter, bytes, ops.deps_on_last_compute()));
    return;
  }
  if (!last_micro_batch) return;
  bucket_bytes_ += bytes;
  if (spec_.ddp.overlap && bucket_bytes_ >= static_cast<double>(spec_.ddp.bucket_size_bytes)) flush_bucket(ops);
}

void DataParallelSync::flush_bucket(RankOps& ops) {
  const CollectiveOp op = spec_.strategy == Strategy::zero1 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  const std::string name = std::string(op == CollectiveOp::all_reduce ? "allreduce" : "reduce_scatter") + ".bucket" +
                           std::to_string(buckets_++);
  gradient_ops_.push_back(collective(ops, name, OpPhase::gradient_sync, op, bucket_bytes_, ops.deps_on_last_compute()));
  bucket_bytes_ = 0.0;
}

void DataParallelSync::finish_backward(RankOps& ops) {
  if (active_ && bucket_bytes_ > 0.0) flush_bucket(ops);
}

void DataParallelSync::after_optimizer(RankOps& ops, double stage_parameters, OpIndex optimizer) {
  if (!active_ || !shards_optimizer(spec_.strategy) || shards_weights(spec_.strategy)) return;
  // ZeRO-1/2: every rank needs the whole updated model for the next step.
  collective(ops, "weights.all_gather", OpPhase::optimizer, CollectiveOp::all_gather,
             stage_parameters * bytes_per_element(spec_.precision), {optimizer});
}

double DataParallelSync::optimizer_share() const {
  return shards_optimizer(spec_.strategy) ? 1.0 / static_cast<double>(spec_.parallel.data) : 1.0;
}

}  // namespace simctl
