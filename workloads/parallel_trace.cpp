#include "workloads/parallel_trace.hpp"

#include <algorithm>
#include <array>
#include <stdexcept>

#include "workloads/data_parallel_sync.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/offload.hpp"
#include "workloads/pipeline_schedule.hpp"
#include "workloads/rank_grid.hpp"
#include "workloads/stage_layout.hpp"

namespace simctl {
namespace {

struct ChunkOps {
  StageChunk chunk;
  std::vector<std::vector<ModelOp>> forward;   // per unit
  std::vector<std::vector<ModelOp>> backward;  // per unit
};

// Every rank of a stage runs the same program; it names its process groups
// and pipeline neighbours by these slots, which each rank binds. The expert
// slots exist only under expert parallelism, the context slot only under
// context parallelism; the embedding pair's slot follows the last slot the
// plan has. The data group is the data x context ranks (those holding the
// same weights).
enum GroupSlot : std::uint32_t { kTensorGroup = 0, kDataGroup = 1, kExpertGroup = 2, kExpertDataGroup = 3 };

std::uint32_t context_slot(const WorkloadSpec& spec) { return spec.parallel.expert > 1 ? 4 : 2; }
std::uint32_t embedding_slot(const WorkloadSpec& spec) {
  return context_slot(spec) + (spec.parallel.context > 1 ? 1 : 0);
}
// The CP ring's neighbours exist only under context parallelism.
enum PeerSlot : std::uint32_t {
  kPreviousStage = 0,
  kNextStage = 1,
  kNextTensorRank = 2,
  kPreviousTensorRank = 3,
  kNextContextRank = 4,
  kPreviousContextRank = 5
};

// Everything one stage's program is built from.
struct StagePlan {
  const WorkloadSpec& spec;
  std::int64_t stage = 0;
  const std::vector<ChunkOps>* chunks = nullptr;
};

// What a stage's program carries from op to op: its data-parallel sync and
// its offload copies.
struct StageSync {
  DataParallelSync& data;
  OffloadOps& offload;
};

std::vector<ChunkOps> chunk_ops(const WorkloadSpec& spec, std::int64_t stage) {
  std::vector<ChunkOps> out;
  for (std::int64_t c = 0; c < spec.parallel.virtual_stages; ++c) {
    ChunkOps ops{stage_chunk(spec, stage, c), {}, {}};
    for (const auto& unit : ops.chunk.units) {
      ops.forward.push_back(forward_ops(unit.shape));
      ops.backward.push_back(backward_ops(unit.shape));
    }
    out.push_back(std::move(ops));
  }
  return out;
}

// A ring-exchange step: the send forwards what the previous step received
// (the first sends the rank's own shard, ready after the last compute); the
// receive, on the overlap stream, is what the GEMM chunk waits for.
OpIndex emit_ring_step(RankOps& ops, const ModelOp& op, const std::string& prefix,
                       std::optional<OpIndex> previous_receive) {
  const std::vector<OpIndex> ready =
      previous_receive ? std::vector<OpIndex>{*previous_receive} : ops.deps_on_last_compute();
  const PeerTransfer send{PeerTransfer::Side::send, kNextTensorRank, op.comm->bytes, CommDimension::tensor};
  ops.other(Op{prefix + op.name + ".send", op.phase, Stream::overlap_send, ready, send, op.host_issued}, std::nullopt);
  const PeerTransfer receive{PeerTransfer::Side::receive, kPreviousTensorRank, op.comm->bytes, CommDimension::tensor};
  return ops.other(Op{prefix + op.name, op.phase, Stream::overlap, {}, receive, op.host_issued},
                   op.comm->consumer_offset);
}

// A context-parallel ring step (context_parallel.hpp): the send forwards
// what the exchange's previous step received, or starts the exchange after
// the last compute op; a dK/dV send also waits for the block it adds to.
// The receive, on the overlap stream, feeds the compute op the offset names.
OpIndex emit_context_ring_step(RankOps& ops, const ModelOp& op, const std::string& prefix,
                               std::optional<OpIndex> previous_receive) {
  std::vector<OpIndex> ready = previous_receive ? std::vector<OpIndex>{*previous_receive} : std::vector<OpIndex>{};
  if (!previous_receive || op.comm->ring == ContextRing::dkv) {
    for (OpIndex last : ops.deps_on_last_compute()) ready.push_back(last);
  }
  const PeerTransfer send{PeerTransfer::Side::send, kNextContextRank, op.comm->bytes, CommDimension::context};
  ops.other(Op{prefix + op.name + ".send", op.phase, Stream::overlap_send, ready, send}, std::nullopt);
  const PeerTransfer receive{PeerTransfer::Side::receive, kPreviousContextRank, op.comm->bytes, CommDimension::context};
  const int consumer = op.comm->consumer_offset;
  return ops.other(Op{prefix + op.name, op.phase, Stream::overlap, {}, receive},
                   consumer < 0 ? std::nullopt : std::optional<int>(consumer));
}

std::uint32_t model_group_slot(const WorkloadSpec& spec, ModelGroup group) {
  switch (group) {
    case ModelGroup::expert: return kExpertGroup;
    case ModelGroup::context: return context_slot(spec);
    case ModelGroup::tensor: break;
  }
  return kTensorGroup;
}

CommDimension model_group_dimension(ModelGroup group) {
  switch (group) {
    case ModelGroup::expert: return CommDimension::expert;
    case ModelGroup::context: return CommDimension::context;
    case ModelGroup::tensor: break;
  }
  return CommDimension::tensor;
}

void emit_model_ops(const WorkloadSpec& spec, RankOps& ops, const std::vector<ModelOp>& list,
                    const std::string& prefix) {
  std::optional<OpIndex> ring_receive;                    // the running ring exchange's last receive
  std::array<std::optional<OpIndex>, 2> context_receive;  // each CP ring exchange's last receive
  for (const auto& op : list) {
    if (op.comm && op.comm->ring_step && op.comm->group == ModelGroup::context) {
      auto& last = context_receive[static_cast<std::size_t>(op.comm->ring)];
      if (op.comm->ring_start) last.reset();
      last = emit_context_ring_step(ops, op, prefix, last);
      continue;
    }
    if (op.comm && op.comm->ring_step) {
      ring_receive = emit_ring_step(ops, op, prefix, ring_receive);
      continue;
    }
    ring_receive.reset();
    if (!op.comm) {
      const OpIndex emitted = ops.compute(prefix + op.name, op.phase, op.work);
      if (!op.host_issued) ops.not_host_issued(emitted);
      continue;
    }
    const CollectiveCall call{op.comm->op, model_group_slot(spec, op.comm->group), op.comm->bytes,
                              model_group_dimension(op.comm->group)};
    const Stream stream = op.comm->overlapped ? Stream::overlap : Stream::communication;
    ops.other(Op{prefix + op.name, op.phase, stream, ops.deps_on_last_compute(), call, op.host_issued},
              op.comm->consumer_offset);
  }
}

// Activations (or their gradients) crossing a stage boundary: the rank's
// s/cp positions. With TP, each TP rank sends only its 1/t slice and the
// receivers all-gather it over NVLink (Megatron's scatter-gather
// optimisation; with SP the slice is the rank's own sequence shard and
// needs no gather).
double boundary_bytes(const WorkloadSpec& spec) {
  const std::int64_t positions = spec.model.seq_len / spec.parallel.context;
  const double full =
      static_cast<double>(spec.micro_batch * positions * spec.model.hidden) * bytes_per_element(spec.precision);
  return full / static_cast<double>(spec.parallel.tensor);
}

void receive(const StagePlan& plan, RankOps& ops, const std::string& name, OpPhase phase, std::uint32_t peer) {
  const PeerTransfer t{PeerTransfer::Side::receive, peer, boundary_bytes(plan.spec), CommDimension::pipeline};
  const OpIndex recv = ops.other(Op{name, phase, Stream::communication, {}, t}, 0);
  if (plan.spec.parallel.tensor > 1 && !(plan.spec.parallel.sequence)) {
    const CollectiveCall gather{CollectiveOp::all_gather, kTensorGroup,
                                boundary_bytes(plan.spec) * static_cast<double>(plan.spec.parallel.tensor),
                                CommDimension::pipeline};
    ops.other(Op{name + ".all_gather", phase, Stream::communication, {recv}, gather}, 0);
  }
}

void send(const StagePlan& plan, RankOps& ops, const std::string& name, OpPhase phase, std::uint32_t peer) {
  const PeerTransfer t{PeerTransfer::Side::send, peer, boundary_bytes(plan.spec), CommDimension::pipeline};
  ops.other(Op{name, phase, Stream::copy, ops.deps_on_last_compute(), t}, std::nullopt);
}

void emit_forward(const StagePlan& plan, RankOps& ops, StageSync sync, const PipelineStep& step) {
  const ChunkOps& c = (*plan.chunks)[static_cast<std::size_t>(step.chunk)];
  const std::string prefix = pipeline_op_prefix(step.micro, step.chunk, plan.spec.parallel.virtual_stages);
  if (c.chunk.first) {
    // The first stage loads each micro-batch (input_pipeline.hpp); every
    // schedule runs the first chunk's forwards in micro-batch order.
    load_micro_batch(ops, plan.spec.input,
                     {static_cast<double>(plan.spec.micro_batch), model_input_bytes_per_sample(plan.spec), prefix,
                      step.micro == 0, step.micro + 1 == plan.spec.grad_accum});
  } else {
    receive(plan, ops, prefix + "activations.recv", OpPhase::forward, kPreviousStage);
  }
  for (std::size_t u = 0; u < c.chunk.units.size(); ++u) {
    sync.data.before_unit(ops, c.chunk.units[u], prefix, OpPhase::forward);
    sync.offload.before_forward(ops, prefix, u, c.chunk.units[u]);
    emit_model_ops(plan.spec, ops, c.forward[u], prefix);
    sync.offload.after_forward(ops, prefix, u, c.chunk.units[u]);
  }
  if (!c.chunk.last) send(plan, ops, prefix + "activations.send", OpPhase::forward, kNextStage);
}

void emit_backward(const StagePlan& plan, RankOps& ops, StageSync sync, const PipelineStep& step,
                   bool last_micro_batch) {
  const ChunkOps& c = (*plan.chunks)[static_cast<std::size_t>(step.chunk)];
  const std::string prefix = pipeline_op_prefix(step.micro, step.chunk, plan.spec.parallel.virtual_stages);
  if (!c.chunk.last) receive(plan, ops, prefix + "grads.recv", OpPhase::backward, kNextStage);
  for (std::size_t u = c.chunk.units.size(); u-- > 0;) {
    sync.data.before_unit(ops, c.chunk.units[u], prefix, OpPhase::backward);
    sync.offload.before_backward(ops, prefix, u, c.chunk.units);
    emit_model_ops(plan.spec, ops, c.backward[u], prefix);
    sync.data.after_unit_backward(ops, c.chunk.units[u], prefix, last_micro_batch);
    sync.offload.after_backward(ops, prefix, c.chunk.units[u], last_micro_batch);
  }
  if (!c.chunk.first) send(plan, ops, prefix + "grads.send", OpPhase::backward, kPreviousStage);
}

// Megatron-LM keeps the word embedding on the first stage and a copy for the
// LM head on the last one; their gradients are summed before the optimizer.
// Untied heads (Llama) have nothing to sum.
bool ties_embeddings(const WorkloadSpec& spec, std::int64_t stage) {
  const std::int64_t p = spec.parallel.pipeline;
  return spec.model.head_ties_embedding() && p > 1 && (stage == 0 || stage == p - 1);
}

std::optional<OpIndex> emit_embedding_tie(const StagePlan& plan, RankOps& ops) {
  const bool frozen = plan.spec.finetune && !plan.spec.finetune->embedding_trains();
  if (!ties_embeddings(plan.spec, plan.stage) || frozen) return std::nullopt;
  const auto& m = plan.spec.model;
  const double bytes = static_cast<double>(m.vocab * m.hidden) / static_cast<double>(plan.spec.parallel.tensor) *
                       bytes_per_element(plan.spec.ddp.grad_dtype);
  const CollectiveCall call{CollectiveOp::all_reduce, embedding_slot(plan.spec), bytes, CommDimension::pipeline};
  return ops.other(
      Op{"embedding.grads.all_reduce", OpPhase::gradient_sync, Stream::communication, ops.deps_on_last_compute(), call},
      std::nullopt);
}

ComputeWork optimizer_work(const WorkloadSpec& spec, double parameters) {
  ComputeWork w = adam_step_work(spec);
  const double scale = parameters / static_cast<double>(spec.model.parameter_count());
  w.flops *= scale;
  w.memory_bytes *= scale;
  return w;
}

// The step's last backward of each chunk, where once-per-step syncs go.
std::vector<std::size_t> last_backward_positions(const std::vector<PipelineStep>& steps, std::int64_t chunks) {
  std::vector<std::size_t> last(static_cast<std::size_t>(chunks), 0);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (!steps[i].forward) last[static_cast<std::size_t>(steps[i].chunk)] = i;
  }
  return last;
}

std::vector<Op> stage_program(const StagePlan& plan) {
  const auto& par = plan.spec.parallel;
  const auto steps = stage_schedule(par.schedule, par.pipeline, plan.stage, plan.spec.grad_accum, par.virtual_stages);
  const auto last_backward = last_backward_positions(steps, par.virtual_stages);
  RankOps ops;
  DataParallelSync sync(plan.spec, kDataGroup, kExpertDataGroup);
  for (const ChunkOps& c : *plan.chunks) sync.start_param_gather(ops, c.chunk);
  OffloadOps offload(plan.spec);
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i].forward) {
      emit_forward(plan, ops, {sync, offload}, steps[i]);
    } else {
      emit_backward(plan, ops, {sync, offload}, steps[i], last_backward[static_cast<std::size_t>(steps[i].chunk)] == i);
    }
  }
  sync.finish_backward(ops);
  std::vector<OpIndex> before_update = sync.gradient_ops();
  if (auto tie = emit_embedding_tie(plan, ops)) before_update.push_back(*tie);
  // Only what trains is updated (all of the stage's weights unless fine-tuning freezes some).
  const double held = stage_trainable_parameters(plan.spec, plan.stage);
  const double experts = stage_expert_parameters(plan.spec, plan.stage);
  const double updated = sync.optimizer_parameters(held, experts);
  const OpIndex update = plan.spec.offload.optimizer ? offload.optimizer_step(ops, before_update, updated)
                                                     : ops.compute("optimizer.adam", OpPhase::optimizer,
                                                                   optimizer_work(plan.spec, updated), before_update);
  sync.after_optimizer(ops, plan.stage, held, experts, update);
  return ops.take();
}

// Expert parallelism cuts a rank's DP group (ranks by DP coordinate) into EP
// groups of `expert` consecutive ranks, which hold all the experts between
// them; the ranks at the same place in every EP group hold the same experts
// and form the expert-data-parallel group.
void bind_expert_groups(const WorkloadSpec& spec, const RankGrid& grid, std::uint32_t rank, GroupTable& groups,
                        RankTrace& out) {
  const std::int64_t e = spec.parallel.expert;
  if (e == 1) return;
  const std::vector<std::uint32_t> data = grid.group(rank, ParallelDim::data);
  const std::int64_t d = grid.coord(rank).data;
  std::vector<std::uint32_t> expert, expert_data;
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(data.size()); ++k) {
    if (k / e == d / e) expert.push_back(data[static_cast<std::size_t>(k)]);
    if (k % e == d % e) expert_data.push_back(data[static_cast<std::size_t>(k)]);
  }
  out.groups.push_back(groups.id(expert, kExpertGroup));
  out.groups.push_back(groups.id(expert_data, kExpertDataGroup));
}

// Binds a rank's slots: its TP and DP x CP groups, its EP and expert-DP
// groups, its CP group, the embedding pair of the first and last stages, its
// neighbours up and down the pipeline, and its neighbours in the TP ring
// (ring exchanges) and in the CP ring.
RankTrace bind_rank(const WorkloadSpec& spec, const RankGrid& grid, std::uint32_t rank, GroupTable& groups) {
  const RankCoord at = grid.coord(rank);
  const std::int64_t p = spec.parallel.pipeline;
  RankTrace out;
  out.program = static_cast<std::uint32_t>(at.pipeline);
  out.groups = {groups.id(grid.group(rank, ParallelDim::tensor), kTensorGroup),
                groups.id(grid.data_context_group(rank), kDataGroup)};
  bind_expert_groups(spec, grid, rank, groups, out);
  const std::vector<std::uint32_t> context = grid.group(rank, ParallelDim::context);
  if (context.size() > 1) out.groups.push_back(groups.id(context, context_slot(spec)));
  auto at_stage = [&](std::int64_t stage) {
    RankCoord c = at;
    c.pipeline = (stage + p) % p;
    return grid.rank(c);
  };
  if (ties_embeddings(spec, at.pipeline))
    out.groups.push_back(groups.id({at_stage(0), at_stage(p - 1)}, embedding_slot(spec)));
  const std::vector<std::uint32_t> tensor = grid.group(rank, ParallelDim::tensor);
  const auto t = static_cast<std::int64_t>(tensor.size());
  const auto me = std::find(tensor.begin(), tensor.end(), rank) - tensor.begin();
  out.peers = {at_stage(at.pipeline - 1), at_stage(at.pipeline + 1), tensor[static_cast<std::size_t>((me + 1) % t)],
               tensor[static_cast<std::size_t>((me + t - 1) % t)]};
  if (context.size() > 1) {
    const auto c = static_cast<std::int64_t>(context.size());
    out.peers.push_back(context[static_cast<std::size_t>((at.context + 1) % c)]);
    out.peers.push_back(context[static_cast<std::size_t>((at.context + c - 1) % c)]);
  }
  return out;
}

StepTotals parallel_step_totals(const WorkloadSpec& spec) {
  const double sequences = static_cast<double>(spec.global_batch);
  StepTotals t;
  t.model_flops = spec.finetune ? finetune_model_flops(spec.model, *spec.finetune, sequences)
                                : training_model_flops(spec.model, sequences);
  t.tokens = sequences * static_cast<double>(spec.model.seq_len);
  t.samples = sequences;
  t.parameters = static_cast<double>(spec.model.parameter_count());
  return t;
}

}  // namespace

std::string pipeline_op_prefix(std::int64_t micro, std::int64_t chunk, std::int64_t virtual_stages) {
  std::string prefix = "mb" + std::to_string(micro) + ".";
  if (virtual_stages > 1) prefix += "c" + std::to_string(chunk) + ".";
  return prefix;
}

Trace build_parallel_trace(const WorkloadSpec& spec) {
  if (spec.strategy == Strategy::data_parallel) {
    throw std::invalid_argument("build_parallel_trace does not build nn.DataParallel; use build_data_parallel_trace");
  }
  const RankGrid grid(spec.parallel);
  GroupTable groups;
  Trace trace;
  for (std::int64_t s = 0; s < spec.parallel.pipeline; ++s) {
    const std::vector<ChunkOps> chunks = chunk_ops(spec, s);
    trace.programs.push_back(stage_program(StagePlan{spec, s, &chunks}));
  }
  for (std::uint32_t r = 0; r < grid.world_size(); ++r) trace.ranks.push_back(bind_rank(spec, grid, r, groups));
  trace.groups = groups.take();
  trace.totals = parallel_step_totals(spec);
  trace.compute_dtype = spec.precision;
  trace.gpu_of_rank = spec.parallel.gpus;
  return trace;
}

}  // namespace simctl
