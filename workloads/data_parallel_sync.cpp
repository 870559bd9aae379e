#include "workloads/data_parallel_sync.hpp"

#include "workloads/layer_split.hpp"

namespace simctl {

bool shards_weights(Strategy s) { return s == Strategy::zero3 || s == Strategy::fsdp; }
bool shards_gradients(Strategy s) { return s == Strategy::zero2 || shards_weights(s); }
bool shards_optimizer(Strategy s) { return s == Strategy::zero1 || shards_gradients(s); }

double stage_linear_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  return static_cast<double>(stage_block_count(spec, stage)) * static_cast<double>(spec.model.linear_parameters()) /
         static_cast<double>(spec.parallel.tensor);
}

namespace {

bool gathers_fp8_linears(const WorkloadSpec& spec) {
  return spec.fp8 && (spec.fp8->param_all_gather || spec.fp8->params);
}

// Bytes an all-gather of `params` weights moves, `linear` of them the linear
// layers', which travel in fp8 when gathers_fp8_linears.
double gather_bytes(const WorkloadSpec& spec, double params, double linear) {
  const double element = bytes_per_element(spec.precision);
  if (!gathers_fp8_linears(spec)) return params * element;
  return params * element - linear * (element - bytes_per_element(DType::fp8));
}

// The linear-layer parameters of `unit`'s blocks on this rank's TP shard.
double unit_linear_parameters(const WorkloadSpec& spec, const ModelUnit& unit) {
  const auto layers = static_cast<double>(unit.shape.last_layer_end() - unit.shape.first_layer);
  return layers * static_cast<double>(spec.model.linear_parameters()) / static_cast<double>(spec.parallel.tensor);
}

}  // namespace

double gathered_weight_bytes(const WorkloadSpec& spec, const ModelUnit& unit) {
  return gather_bytes(spec, unit.parameters, unit_linear_parameters(spec, unit));
}

DataParallelSync::DataParallelSync(const WorkloadSpec& spec, std::uint32_t dp_group, std::uint32_t expert_dp_group)
    : spec_(spec),
      split_(spec.parallel.expert > 1),
      dense_{dp_group, spec.parallel.gradient_replicas(), "", 0.0, 0},
      experts_{expert_dp_group, split_ ? spec.parallel.expert_data() : 1, "experts.", 0.0, 0} {}

OpIndex DataParallelSync::collective(RankOps& ops, const Lane& lane, std::string name, OpPhase phase, CollectiveOp op,
                                     double bytes, std::vector<OpIndex> deps) {
  CollectiveCall call{op, lane.group, bytes, CommDimension::data};
  return ops.other(Op{std::move(name), phase, Stream::data_parallel, std::move(deps), call}, std::nullopt);
}

bool DataParallelSync::gathers_params_ahead() const {
  return spec_.ddp.overlap_param_gather && shards_optimizer(spec_.strategy) && !shards_weights(spec_.strategy);
}

void DataParallelSync::flush_gather(RankOps& ops, Lane& lane, GatherBucket& bucket) {
  if (bucket.bytes <= 0.0) return;
  const CollectiveCall call{CollectiveOp::all_gather, lane.group, bucket.bytes, CommDimension::data};
  const std::string name = lane.prefix + "weights.all_gather.bucket" + std::to_string(gather_buckets_++);
  const OpIndex gather = ops.other(Op{name, OpPhase::forward, Stream::prefetch, {}, call}, std::nullopt);
  for (const auto& unit : bucket.units) param_gathers_[unit].push_back(gather);
  bucket = GatherBucket{};
}

// The same bucket cap as the gradients', filled in forward order, so the
// first layers' weights arrive first.
void DataParallelSync::start_param_gather(RankOps& ops, const StageChunk& chunk) {
  if (!gathers_params_ahead()) return;
  const double element = bytes_per_element(spec_.precision);
  const double cap = static_cast<double>(spec_.ddp.bucket_size_bytes);
  for (Lane* lane : {&dense_, &experts_}) {
    if (!lane->active()) continue;
    GatherBucket bucket;
    for (const auto& unit : chunk.units) {
      const double part =
          lane == &dense_ ? dense_part(unit.parameters, unit.expert_parameters) : unit.expert_parameters;
      if (part <= 0.0) continue;
      bucket.bytes += lane == &dense_ ? gather_bytes(spec_, part, unit_linear_parameters(spec_, unit)) : part * element;
      bucket.units.push_back(unit.name);
      if (bucket.bytes >= cap) flush_gather(ops, *lane, bucket);
    }
    flush_gather(ops, *lane, bucket);
  }
}

// ZeRO-3/FSDP run without EP (the config refuses the pair), so a unit's
// weights are all in the data-parallel group.
void DataParallelSync::before_unit(RankOps& ops, const ModelUnit& unit, const std::string& prefix, OpPhase phase) {
  if (phase == OpPhase::forward) {
    if (auto waiting = param_gathers_.find(unit.name); waiting != param_gathers_.end()) {
      for (OpIndex gather : waiting->second) ops.wait_before_next_compute(gather);
      param_gathers_.erase(waiting);
    }
  }
  if (!dense_.active() || !shards_weights(spec_.strategy)) return;
  if (keeps_gathered() && (phase != OpPhase::forward || !gathered_units_.insert(unit.name).second)) return;
  // Gather this unit while the previous one computes, not earlier: FSDP's
  // prefetch keeps one unit in flight.
  std::vector<OpIndex> deps;
  if (prefetch_anchor_) deps.push_back(*prefetch_anchor_);
  prefetch_anchor_ = ops.last_compute();
  const double bytes = gathered_weight_bytes(spec_, unit);
  const std::string what = phase == OpPhase::forward ? ".weights.all_gather" : ".weights.regather";
  CollectiveCall call{CollectiveOp::all_gather, dense_.group, bytes, CommDimension::data};
  ops.other(Op{prefix + unit.name + what, phase, Stream::data_parallel, std::move(deps), call}, 0);
}

void DataParallelSync::unit_gradients(RankOps& ops, Lane& lane, double parameters, const std::string& name,
                                      bool last_micro_batch) {
  if (!lane.active() || parameters <= 0.0) return;
  const double bytes = parameters * bytes_per_element(spec_.ddp.grad_dtype);
  if (keeps_gathered()) {
    if (last_micro_batch) held_grads_.emplace_back(name, bytes);
    return;
  }
  if (shards_gradients(spec_.strategy)) {
    const std::string what = lane.prefix.empty() ? ".grads.reduce_scatter" : ".experts.grads.reduce_scatter";
    gradient_ops_.push_back(collective(ops, lane, name + what, OpPhase::gradient_sync, CollectiveOp::reduce_scatter,
                                       bytes, ops.deps_on_last_compute()));
    return;
  }
  if (!last_micro_batch) return;
  lane.bucket_bytes += bytes;
  if (spec_.ddp.overlap && lane.bucket_bytes >= static_cast<double>(spec_.ddp.bucket_size_bytes)) {
    flush_bucket(ops, lane);
  }
}

void DataParallelSync::after_unit_backward(RankOps& ops, const ModelUnit& unit, const std::string& prefix,
                                           bool last_micro_batch) {
  const std::string name = prefix + unit.name;
  unit_gradients(ops, dense_, dense_part(unit.trainable, unit.expert_parameters), name, last_micro_batch);
  if (split_) unit_gradients(ops, experts_, unit.expert_parameters, name, last_micro_batch);
}

void DataParallelSync::flush_bucket(RankOps& ops, Lane& lane) {
  const CollectiveOp op = spec_.strategy == Strategy::zero1 ? CollectiveOp::reduce_scatter : CollectiveOp::all_reduce;
  const std::string name = lane.prefix + (op == CollectiveOp::all_reduce ? "allreduce" : "reduce_scatter") + ".bucket" +
                           std::to_string(lane.buckets++);
  gradient_ops_.push_back(
      collective(ops, lane, name, OpPhase::gradient_sync, op, lane.bucket_bytes, ops.deps_on_last_compute()));
  lane.bucket_bytes = 0.0;
}

bool DataParallelSync::keeps_gathered() const {
  return spec_.strategy == Strategy::fsdp && spec_.parallel.pipeline > 1;
}

void DataParallelSync::finish_backward(RankOps& ops) {
  // The stage's post-backward reduces every unit's accumulated gradient, in
  // the order backward finished them.
  for (const auto& [unit, bytes] : held_grads_) {
    gradient_ops_.push_back(collective(ops, dense_, unit + ".grads.reduce_scatter", OpPhase::gradient_sync,
                                       CollectiveOp::reduce_scatter, bytes, ops.deps_on_last_compute()));
  }
  held_grads_.clear();
  for (Lane* lane : {&dense_, &experts_}) {
    if (lane->active() && lane->bucket_bytes > 0.0) flush_bucket(ops, *lane);
  }
}

void DataParallelSync::after_optimizer(RankOps& ops, std::int64_t stage, double parameters, double expert_parameters,
                                       OpIndex optimizer) {
  if (!shards_optimizer(spec_.strategy) || shards_weights(spec_.strategy)) return;
  // Gathered at the start of the (next) step instead: start_param_gather.
  if (gathers_params_ahead()) return;
  // ZeRO-1/2: every rank needs the whole updated model for the next step.
  const double dense = dense_part(parameters, expert_parameters);
  if (dense_.active()) {
    collective(ops, dense_, "weights.all_gather", OpPhase::optimizer, CollectiveOp::all_gather,
               gather_bytes(spec_, dense, stage_linear_parameters(spec_, stage)), {optimizer});
  }
  if (split_ && experts_.active() && expert_parameters > 0.0) {
    collective(ops, experts_, experts_.prefix + "weights.all_gather", OpPhase::optimizer, CollectiveOp::all_gather,
               expert_parameters * bytes_per_element(spec_.precision), {optimizer});
  }
}

double DataParallelSync::optimizer_parameters(double parameters, double expert_parameters) const {
  if (!shards_optimizer(spec_.strategy)) return parameters;
  const double dense = dense_part(parameters, expert_parameters);
  const double expert = split_ ? expert_parameters : 0.0;
  return dense / static_cast<double>(dense_.replicas) + expert / static_cast<double>(experts_.replicas);
}

}  // namespace simctl
