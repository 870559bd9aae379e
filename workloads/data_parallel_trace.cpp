#include "workloads/data_parallel_trace.hpp"

#include <stdexcept>

#include "workloads/ddp_trace.hpp"
#include "workloads/input_pipeline.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/rank_ops.hpp"
#include "workloads/stage_layout.hpp"

namespace simctl {
namespace {

constexpr std::uint32_t kMaster = 0;
constexpr std::uint32_t kEveryone = 0;  // the only group

// The replicas run the model up to the logits; the loss runs on the master.
bool is_loss(const ModelOp& op) { return op.name == "cross_entropy" || op.name == "cross_entropy.bwd"; }

struct Sizes {
  double weight_bytes = 0.0;
  double grad_bytes = 0.0;
  double input_bytes = 0.0;   // one replica's slice
  double logits_bytes = 0.0;  // one replica's output
};

Sizes sizes_of(const WorkloadSpec& spec) {
  const double params = static_cast<double>(spec.model.parameter_count());
  // The head's logits: every position's vocabulary for an LM, less for a
  // task head (transformer_spec.hpp).
  const double logits = static_cast<double>(spec.micro_batch) * spec.model.head_logits_per_sequence();
  return {params * bytes_per_element(spec.precision), params * bytes_per_element(spec.ddp.grad_dtype),
          model_input_bytes_per_sample(spec) * static_cast<double>(spec.micro_batch),
          logits * bytes_per_element(spec.precision)};
}

OpIndex collective(RankOps& ops, const std::string& name, OpPhase phase, CollectiveOp op, double bytes) {
  return ops.other(Op{name, phase, Stream::communication, ops.deps_on_last_compute(),
                      CollectiveCall{op, kEveryone, bytes, CommDimension::data}},
                   0);
}

// The master's side of a scatter (sends) or a gather (receives), one peer at
// a time as torch.cuda.comm does; a replica's side is one transfer.
void exchange(RankOps& ops, std::uint32_t rank, std::int64_t ranks, const std::string& name, OpPhase phase,
              double bytes, bool to_master) {
  const bool master = rank == kMaster;
  auto side = [&](bool sending) { return sending ? PeerTransfer::Side::send : PeerTransfer::Side::receive; };
  const Stream send_stream = Stream::copy;
  for (std::uint32_t peer = 1; peer < static_cast<std::uint32_t>(ranks); ++peer) {
    if (!master && peer != rank) continue;
    const bool sending = master != to_master;
    const PeerTransfer t{side(sending), master ? peer : kMaster, bytes, CommDimension::data};
    const Stream stream = sending ? send_stream : Stream::communication;
    ops.other(Op{name + "." + std::to_string(peer), phase, stream, ops.deps_on_last_compute(), t},
              sending ? std::nullopt : std::optional<int>(0));
  }
}

ComputeWork scaled(ComputeWork w, double factor) {
  w.flops *= factor;
  w.memory_bytes *= factor;
  return w;
}

void emit_micro_batch(RankOps& ops, const WorkloadSpec& spec, std::uint32_t rank, std::int64_t micro,
                      const std::vector<ModelOp>& fwd, const std::vector<ModelOp>& bwd) {
  const Sizes z = sizes_of(spec);
  const std::int64_t n = spec.parallel.data;
  const std::string prefix = "mb" + std::to_string(micro) + ".";
  const double replicas = static_cast<double>(n);
  collective(ops, prefix + "replicate.broadcast", OpPhase::forward, CollectiveOp::broadcast, z.weight_bytes);
  if (rank == kMaster) {  // one process loads every replica's slice
    load_micro_batch(ops, spec.input,
                     {static_cast<double>(spec.micro_batch) * replicas, model_input_bytes_per_sample(spec), prefix,
                      micro == 0, micro + 1 == spec.grad_accum});
  }
  exchange(ops, rank, n, prefix + "scatter_inputs", OpPhase::data_loading, z.input_bytes, false);
  const ModelOp* loss_fwd = nullptr;
  const ModelOp* loss_bwd = nullptr;
  for (const auto& op : fwd) {
    if (is_loss(op))
      loss_fwd = &op;
    else
      ops.compute(prefix + op.name, op.phase, op.work);
  }
  exchange(ops, rank, n, prefix + "gather_outputs", OpPhase::forward, z.logits_bytes, true);
  for (const auto& op : bwd) {
    if (is_loss(op)) loss_bwd = &op;
  }
  if (rank == kMaster) {
    ops.compute(prefix + "cross_entropy", OpPhase::forward, scaled(loss_fwd->work, replicas));
    ops.compute(prefix + "cross_entropy.bwd", OpPhase::backward, scaled(loss_bwd->work, replicas));
  }
  exchange(ops, rank, n, prefix + "scatter_output_grads", OpPhase::backward, z.logits_bytes, false);
  for (const auto& op : bwd) {
    if (!is_loss(op)) ops.compute(prefix + op.name, op.phase, op.work);
  }
  collective(ops, prefix + "grads.reduce", OpPhase::gradient_sync, CollectiveOp::reduce, z.grad_bytes);
}

std::vector<Op> rank_ops(const WorkloadSpec& spec, std::uint32_t rank) {
  const PassShape shape = plan_shape(spec);
  const auto fwd = forward_ops(shape);
  const auto bwd = backward_ops(shape);
  RankOps ops;
  for (std::int64_t micro = 0; micro < spec.grad_accum; ++micro) emit_micro_batch(ops, spec, rank, micro, fwd, bwd);
  if (rank == kMaster) ops.compute("optimizer.adam", OpPhase::optimizer, adam_step_work(spec));
  return ops.take();
}

}  // namespace

Trace build_data_parallel_trace(const WorkloadSpec& spec) {
  if (spec.strategy != Strategy::data_parallel || spec.parallel.tensor != 1 || spec.parallel.pipeline != 1) {
    throw std::invalid_argument("build_data_parallel_trace needs strategy data_parallel without TP or PP");
  }
  Trace trace;
  std::vector<std::uint32_t> everyone;
  for (std::uint32_t r = 0; r < static_cast<std::uint32_t>(spec.parallel.data); ++r) {
    trace.add_rank(rank_ops(spec, r));
    everyone.push_back(r);
  }
  trace.groups.push_back(std::move(everyone));
  const double sequences = static_cast<double>(spec.global_batch);
  trace.totals =
      StepTotals{training_model_flops(spec.model, sequences), sequences * static_cast<double>(spec.model.seq_len),
                 sequences, static_cast<double>(spec.model.parameter_count())};
  trace.compute_dtype = spec.precision;
  trace.gpu_of_rank = spec.parallel.gpus;
  return trace;
}

}  // namespace simctl
