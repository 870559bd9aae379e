#include "workloads/inference_trace.hpp"

#include "workloads/rank_grid.hpp"
#include "workloads/rank_ops.hpp"

namespace simctl {
namespace {

enum GroupSlot : std::uint32_t { kTensorGroup = 0 };
enum PeerSlot : std::uint32_t { kPreviousStage = 0, kNextStage = 1 };

// Activations of the step's tokens, as one TP rank sends them.
double boundary_bytes(const InferencePass& pass) {
  const DType activations = pass.dtype == DType::fp8 ? DType::bf16 : pass.dtype;
  const double full = static_cast<double>(pass.token_rows() * pass.model.hidden) * bytes_per_element(activations);
  return full / static_cast<double>(pass.tensor);
}

void receive_activations(const InferencePass& pass, RankOps& ops) {
  const PeerTransfer t{PeerTransfer::Side::receive, kPreviousStage, boundary_bytes(pass), CommDimension::pipeline};
  const OpIndex recv = ops.other(Op{"stage.receive", OpPhase::forward, Stream::communication, {}, t}, 0);
  if (pass.tensor == 1) return;
  const CollectiveCall gather{CollectiveOp::all_gather, kTensorGroup,
                              boundary_bytes(pass) * static_cast<double>(pass.tensor), CommDimension::pipeline};
  ops.other(Op{"stage.all_gather", OpPhase::forward, Stream::communication, {recv}, gather}, 0);
}

void send_activations(const InferencePass& pass, RankOps& ops) {
  const PeerTransfer t{PeerTransfer::Side::send, kNextStage, boundary_bytes(pass), CommDimension::pipeline};
  ops.other(Op{"stage.send", OpPhase::forward, Stream::copy, ops.deps_on_last_compute(), t}, std::nullopt);
}

std::vector<Op> stage_program(const WorkloadSpec& spec, const InferenceStep& step, std::int64_t stage) {
  const InferencePass pass = inference_pass(spec, step, stage);
  RankOps ops;
  if (stage > 0) receive_activations(pass, ops);
  for (const ModelOp& op : inference_ops(pass)) {
    if (!op.comm) {
      ops.compute(op.name, op.phase, op.work);
      continue;
    }
    const CollectiveCall call{op.comm->op, kTensorGroup, op.comm->bytes, CommDimension::tensor};
    ops.other(Op{op.name, op.phase, Stream::communication, ops.deps_on_last_compute(), call}, 0);
  }
  if (stage + 1 < spec.parallel.pipeline) send_activations(pass, ops);
  return ops.take();
}

RankTrace bind_rank(const WorkloadSpec& spec, const RankGrid& grid, std::uint32_t rank, GroupTable& groups) {
  const RankCoord at = grid.coord(rank);
  const std::int64_t p = spec.parallel.pipeline;
  auto at_stage = [&](std::int64_t stage) {
    RankCoord c = at;
    c.pipeline = (stage + p) % p;
    return grid.rank(c);
  };
  RankTrace out;
  out.program = static_cast<std::uint32_t>(at.pipeline);
  out.groups = {groups.id(grid.group(rank, ParallelDim::tensor), kTensorGroup)};
  out.peers = {at_stage(at.pipeline - 1), at_stage(at.pipeline + 1)};
  return out;
}

}  // namespace

InferencePass inference_pass(const WorkloadSpec& spec, const InferenceStep& step, std::int64_t stage) {
  const InferenceSpec& inf = *spec.inference;
  const std::int64_t per_stage = spec.model.layers / spec.parallel.pipeline;
  InferencePass pass;
  pass.model = spec.model;
  pass.phase = step.phase;
  pass.batch = step.batch;
  if (step.phase == InferencePhase::prefill) {
    pass.prompt = step.tokens;
  } else {
    pass.cached = step.tokens;
  }
  pass.dtype = spec.precision;
  pass.kv_dtype = inf.kv_cache_dtype;
  pass.tensor = spec.parallel.tensor;
  pass.first_layer = stage * per_stage;
  pass.end_layer = pass.first_layer + per_stage;
  pass.embedding = stage == 0;
  pass.head = stage + 1 == spec.parallel.pipeline;
  return pass;
}

Trace build_inference_trace(const WorkloadSpec& spec, const InferenceStep& step) {
  const RankGrid grid(spec.parallel);
  GroupTable groups;
  Trace trace;
  for (std::int64_t s = 0; s < spec.parallel.pipeline; ++s) trace.programs.push_back(stage_program(spec, step, s));
  for (std::uint32_t r = 0; r < grid.world_size(); ++r) trace.ranks.push_back(bind_rank(spec, grid, r, groups));
  trace.groups = groups.take();
  const double replicas = static_cast<double>(spec.parallel.data);
  const double tokens_per_sequence = step.phase == InferencePhase::prefill ? static_cast<double>(step.tokens) : 1.0;
  trace.totals.tokens = replicas * static_cast<double>(step.batch) * tokens_per_sequence;
  trace.totals.samples = replicas * static_cast<double>(step.batch);
  trace.totals.parameters = static_cast<double>(spec.model.parameter_count());
  trace.totals.model_flops = 2.0 * trace.totals.parameters * trace.totals.tokens;
  trace.compute_dtype = spec.precision;
  trace.gpu_of_rank = spec.parallel.gpus;
  return trace;
}

}  // namespace simctl
