#include "sim/exec/executor.hpp"

#include <stdexcept>
#include <string>

#include "models/devices/compute_model.hpp"
#include "models/network/system_collective_topology.hpp"
#include "sim/exec/host_endpoints.hpp"

namespace simctl {
namespace {

std::size_t stream_index(Stream s) { return static_cast<std::size_t>(s); }

}  // namespace

Executor::Executor(const System& system, const DeviceCatalogue& catalogue, const Trace& trace, CollectiveTuning tuning)
    : system_(system), catalogue_(catalogue), trace_(trace), tuning_(std::move(tuning)) {
  if (trace_.ranks.size() > system_.gpus().size()) {
    throw std::runtime_error("the trace has " + std::to_string(trace_.ranks.size()) +
                             " ranks but the system has only " + std::to_string(system_.gpus().size()) + " GPUs");
  }
}

void Executor::prepare_rank(std::uint32_t rank) {
  RankState& state = ranks_[rank];
  const RankTrace& ops = trace_.ranks[rank];
  state.endpoint = system_.gpus()[trace_.gpu_index(rank)];
  state.gpu = &catalogue_.gpu(system_.part(state.endpoint).model);
  state.compute_speed = system_.part(state.endpoint).compute_speed;
  state.unfinished_deps.assign(ops.ops.size(), 0);
  state.dependents.assign(ops.ops.size(), {});
  state.next_collective.assign(trace_.groups.size(), 0);
  for (OpIndex i = 0; i < ops.ops.size(); ++i) {
    const Op& op = ops.ops[i];
    for (OpIndex dep : op.deps) {
      if (dep >= i) {
        throw std::runtime_error("rank " + std::to_string(rank) + " op " + std::to_string(i) + " ('" + op.name +
                                 "') depends on a later op " + std::to_string(dep));
      }
      state.dependents[dep].push_back(i);
    }
    state.unfinished_deps[i] = static_cast<std::uint32_t>(op.deps.size());
    state.stream_order[stream_index(op.stream)].push_back(i);
  }
  result_.ranks[rank].ops.assign(ops.ops.size(), OpTiming{});
}

ExecutionResult Executor::run() {
  network_ = std::make_unique<FlowNetwork>(engine_, system_.link_capacities());
  collectives_ = std::make_unique<CollectiveRunner>(engine_, *network_, system_, tuning_);
  // With the machine's facts (nodes, rails, NVSwitch) the runner chooses each
  // collective's algorithm and protocol by size as NCCL does.
  collectives_->set_topology(describe_collective_topology(system_));
  ranks_.assign(trace_.ranks.size(), RankState{});
  result_ = ExecutionResult{};
  result_.ranks.resize(trace_.ranks.size());
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) prepare_rank(r);
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
    for (std::size_t s = 0; s < kStreams; ++s) try_start_stream(r, s);
  }
  engine_.run();

  for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
    if (ranks_[r].finished != trace_.ranks[r].ops.size()) {
      throw std::runtime_error(
          "the trace deadlocked: rank " + std::to_string(r) + " finished " + std::to_string(ranks_[r].finished) +
          " of " + std::to_string(trace_.ranks[r].ops.size()) + " ops (a collective some group member never reaches?)");
    }
    result_.step_time = std::max(result_.step_time, result_.ranks[r].finish);
  }
  result_.events = engine_.events_processed();
  result_.flows = network_->flows_started();
  result_.links.resize(system_.num_links());
  for (LinkId l = 0; l < result_.links.size(); ++l) {
    result_.links[l] = LinkUsage{network_->bytes_carried(l), network_->busy_time(l)};
  }
  return std::move(result_);
}

// Streams run their ops in list order, one at a time, like CUDA streams: the
// head op starts once its dependencies are done and the stream is free.
void Executor::try_start_stream(std::uint32_t rank, std::size_t stream) {
  RankState& state = ranks_[rank];
  const auto& order = state.stream_order[stream];
  if (state.stream_busy[stream] || state.stream_head[stream] >= order.size()) return;
  OpIndex op = order[state.stream_head[stream]];
  if (state.unfinished_deps[op] != 0) return;
  state.stream_busy[stream] = true;
  start_op(rank, op);
}

void Executor::start_op(std::uint32_t rank, OpIndex op) {
  result_.ranks[rank].ops[op].start = engine_.now();
  const Op& spec = trace_.ranks[rank].ops[op];
  if (const auto* work = std::get_if<ComputeWork>(&spec.work)) {
    start_compute(rank, op, *work);
  } else if (const auto* call = std::get_if<CollectiveCall>(&spec.work)) {
    arrive_at_collective(rank, op, *call);
  } else if (const auto* copy = std::get_if<CopyCall>(&spec.work)) {
    start_copy(rank, op, *copy);
  } else if (const auto* host = std::get_if<HostWork>(&spec.work)) {
    engine_.schedule_after(seconds_to_ps(host->seconds), [this, rank, op] { finish_op(rank, op); });
  } else {
    arrive_at_peer_transfer(rank, op, std::get<PeerTransfer>(spec.work));
  }
}

void Executor::start_compute(std::uint32_t rank, OpIndex op, const ComputeWork& work) {
  const ComputeEstimate estimate = estimate_compute(*ranks_[rank].gpu, work);
  result_.ranks[rank].ops[op].memory_bound = estimate.memory_bound;
  const double speed = ranks_[rank].compute_speed;
  const TimePs time = speed == 1.0 ? estimate.time : seconds_to_ps(ps_to_seconds(estimate.time) / speed);
  engine_.schedule_after(time, [this, rank, op] { finish_op(rank, op); });
}

// A collective starts only when every member has reached its k-th call in
// that group, as NCCL's kernels wait for all peers.
void Executor::arrive_at_collective(std::uint32_t rank, OpIndex op, const CollectiveCall& call) {
  if (call.group >= trace_.groups.size()) {
    throw std::runtime_error("rank " + std::to_string(rank) + " calls a collective on unknown group " +
                             std::to_string(call.group));
  }
  const std::uint32_t instance = ranks_[rank].next_collective[call.group]++;
  PendingCollective& pending = pending_collectives_[{call.group, instance}];
  pending.arrived.emplace_back(rank, op);
  if (pending.arrived.size() == trace_.groups[call.group].size()) launch_collective(call.group, instance);
}

void Executor::launch_collective(std::uint32_t group, std::uint32_t instance) {
  auto node = pending_collectives_.extract({group, instance});
  auto arrived = std::move(node.mapped().arrived);
  const auto [first_rank, first_op] = arrived.front();
  const auto& call = std::get<CollectiveCall>(trace_.ranks[first_rank].ops[first_op].work);
  CollectiveRequest request;
  request.op = call.op;
  request.bytes = call.bytes;
  for (std::uint32_t member : trace_.groups[group]) request.members.push_back(ranks_[member].endpoint);
  collectives_->start(request, [this, arrived = std::move(arrived)] {
    for (const auto& [rank, op] : arrived) finish_op(rank, op);
  });
}

void Executor::start_copy(std::uint32_t rank, OpIndex op, const CopyCall& copy) {
  const auto [from, to] = copy_endpoints(system_, ranks_[rank].endpoint, copy.direction);
  network_->start(system_.route(from, to), copy.bytes, [this, rank, op] { finish_op(rank, op); });
}

void Executor::arrive_at_peer_transfer(std::uint32_t rank, OpIndex op, const PeerTransfer& transfer) {
  if (transfer.peer >= ranks_.size() || transfer.peer == rank) {
    throw std::runtime_error("rank " + std::to_string(rank) + " op '" + trace_.ranks[rank].ops[op].name +
                             "' names an invalid peer rank " + std::to_string(transfer.peer));
  }
  const bool sending = transfer.side == PeerTransfer::Side::send;
  const std::uint32_t sender = sending ? rank : transfer.peer;
  const std::uint32_t receiver = sending ? transfer.peer : rank;
  PendingPeer& pending = pending_peers_[{sender, receiver}];
  (sending ? pending.sends : pending.receives).push_back(op);
  if (pending.sends.empty() || pending.receives.empty()) return;
  const OpIndex send_op = pending.sends.front();
  const OpIndex receive_op = pending.receives.front();
  pending.sends.pop_front();
  pending.receives.pop_front();
  launch_peer_transfer(sender, receiver, send_op, receive_op);
}

// The sender's byte count is the transfer's size: a receive posts a buffer,
// the send decides what fills it.
void Executor::launch_peer_transfer(std::uint32_t sender, std::uint32_t receiver, OpIndex send_op, OpIndex receive_op) {
  const auto& send = std::get<PeerTransfer>(trace_.ranks[sender].ops[send_op].work);
  const Path& path = system_.route(ranks_[sender].endpoint, ranks_[receiver].endpoint);
  network_->start(path, send.bytes, [this, sender, receiver, send_op, receive_op] {
    finish_op(sender, send_op);
    finish_op(receiver, receive_op);
  });
}

void Executor::finish_op(std::uint32_t rank, OpIndex op) {
  RankState& state = ranks_[rank];
  result_.ranks[rank].ops[op].end = engine_.now();
  result_.ranks[rank].finish = std::max(result_.ranks[rank].finish, engine_.now());
  ++state.finished;
  const std::size_t stream = stream_index(trace_.ranks[rank].ops[op].stream);
  state.stream_busy[stream] = false;
  ++state.stream_head[stream];
  for (OpIndex next : state.dependents[op]) --state.unfinished_deps[next];
  for (std::size_t s = 0; s < kStreams; ++s) try_start_stream(rank, s);
}

}  // namespace simctl
