#include "sim/exec/executor.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <stdexcept>
#include <string>

#include "models/devices/compute_model.hpp"
#include "models/devices/measured_kernel.hpp"
#include "models/network/system_collective_topology.hpp"
#include "sim/core/clock_overflow.hpp"
#include "sim/core/run_arena.hpp"
#include "sim/core/streaming_store.hpp"
#include "sim/exec/compute_bound.hpp"
#include "sim/exec/host_endpoints.hpp"
#include "sim/exec/pageable_staging.hpp"

namespace simctl {

Executor::Executor(const System& system, const DeviceCatalogue& catalogue, const Trace& trace, CollectiveTuning tuning,
                   CollectiveOverrides overrides)
    : system_(system), catalogue_(catalogue), trace_(trace), tuning_(std::move(tuning)), overrides_(overrides) {
  if (trace_.ranks.size() > system_.gpus().size()) {
    throw std::runtime_error("the trace has " + std::to_string(trace_.ranks.size()) +
                             " ranks but the system has only " + std::to_string(system_.gpus().size()) + " GPUs");
  }
}

void Executor::on_progress(ProgressCallback callback, std::uint64_t every_events) {
  progress_ = std::move(callback);
  progress_mask_ = std::bit_ceil(std::max<std::uint64_t>(every_events, 1)) - 1;
}

std::size_t Executor::RankState::finished_ops() const {
  std::size_t done = 0;
  for (std::uint32_t head : stream_head) done += head;
  return done;
}

ReplayProgress Executor::progress() const {
  std::size_t done = 0;
  for (const RankState& state : ranks_) done += state.finished_ops();
  done *= folded_replicas_;  // a folded replay's ranks stand for their images too
  return {engine_.now(), engine_.events_processed(), done, trace_.op_count()};
}

// The engine's loop, with a progress report every 2^k events when asked for:
// counting finished ops is left to the report, so the loop itself pays one
// mask and branch per event.
void Executor::replay() {
  if (fold_) {
    // A fold found not to hold is abandoned at once: the replay of every
    // rank that follows starts from the beginning anyway.
    while (!fold_broken_ && engine_.step()) {
      if (progress_ && (engine_.events_processed() & progress_mask_) == 0) progress_(progress());
    }
    if (progress_ && !fold_broken_) progress_(progress());
    return;
  }
  if (!progress_) {
    engine_.run();
    return;
  }
  while (engine_.step()) {
    if ((engine_.events_processed() & progress_mask_) == 0) progress_(progress());
  }
  progress_(progress());
}

const Executor::KernelTimes& Executor::kernel_times(std::uint32_t program, const GpuSpec& gpu) {
  auto [at, added] = kernel_times_.try_emplace({program, &gpu});
  if (!added) return at->second;
  const std::vector<Op>& ops = trace_.programs[program];
  KernelTimes& k = at->second;
  k.time.assign(ops.size(), 0);
  k.bound = std::make_shared<std::vector<KernelBound>>(ops.size(), KernelBound::compute);
  // The scenario checked that a trace with measured kernels names a catalogue GPU.
  const GpuSpec* measured_on = catalogue_.find_gpu(trace_.measured_on);
  for (OpIndex i = 0; i < ops.size(); ++i) {
    if (const auto* work = std::get_if<ComputeWork>(&ops[i].work)) {
      const ComputeEstimate estimate = work->measured_seconds > 0.0 && measured_on
                                           ? measured_kernel_estimate(*work, *measured_on, gpu)
                                           : estimate_compute(gpu, *work);
      k.time[i] = estimate.time;
      (*k.bound)[i] = estimate.bound;
    }
  }
  return k;
}

// Each program's shape, built (and checked) for the first rank bound to it.
void Executor::shape_programs() {
  shapes_.clear();
  shapes_.resize(trace_.programs.size());
  for (std::uint32_t rank = 0; rank < trace_.ranks.size(); ++rank) {
    const std::uint32_t program = trace_.ranks[rank].program;
    if (program >= trace_.programs.size()) {
      throw std::runtime_error("rank " + std::to_string(rank) + " runs program " + std::to_string(program) +
                               " but the trace has " + std::to_string(trace_.programs.size()));
    }
    auto& shape = shapes_[program];
    if (shape) continue;
    shape = std::make_unique<ProgramShape>(shape_of_program(trace_.programs[program], rank));
    shape->issue_time = host_issue_times(trace_.programs[program], seconds_to_ps(trace_.host_issue_seconds_per_op));
  }
}

void Executor::prepare_rank(std::uint32_t rank) {
  RankState& state = ranks_[rank];
  const RankTrace& binding = trace_.ranks[rank];
  const auto& shape = shapes_[binding.program];
  state.ops = &trace_.programs[binding.program];
  state.shape = shape.get();
  state.endpoint = system_.gpus()[trace_.gpu_index(rank)];
  if (fold_ && !fold_->represents(rank)) {
    // An image: its timings are the representative's, shared by unfold().
    result_.timelines.push_back(RankTimeline{std::pmr::vector<OpTiming>(result_.timing_memory.get()), nullptr, 0});
    result_.meetings.emplace_back(result_.timing_memory.get());
    return;
  }
  state.kernels = &kernel_times(binding.program, catalogue_.gpu(system_.part(state.endpoint).model));
  state.compute_speed = system_.part(state.endpoint).compute_speed;
  const std::size_t count = shape->dep_count.size();
  state.unfinished_deps =
      static_cast<DepCount*>(counter_memory_->allocate(count * sizeof(DepCount), alignof(DepCount)));
  std::copy(shape->dep_count.begin(), shape->dep_count.end(), state.unfinished_deps);
  state.group_slots.resize(trace_.group_slot_count(rank));
  for (std::uint32_t slot = 0; slot < state.group_slots.size(); ++slot) {
    state.group_slots[slot].group = trace_.group_in_slot(rank, slot);
  }
  state.peer_pairs.resize(trace_.ranks[rank].peers.size());
  // Move-constructed, not assigned: a move-assigned pmr vector would copy
  // itself into the default resource.
  result_.timelines.push_back(RankTimeline{std::pmr::vector<OpTiming>(count, OpTiming{}, result_.timing_memory.get()),
                                           state.kernels->bound, 0});
  state.timing = result_.timelines.back().ops.data();
  result_.meetings.emplace_back(shape->meeting_count, Rendezvous{}, result_.timing_memory.get());
}

// Bytes of per-op results the replay keeps: every op's timing, and the
// rendezvous of every collective and transfer.
std::size_t Executor::result_bytes() const {
  std::size_t bytes = 0;
  for (const RankTrace& rank : trace_.ranks) {
    const ProgramShape& shape = *shapes_[rank.program];
    bytes += shape.dep_count.size() * sizeof(OpTiming) + shape.meeting_count * sizeof(Rendezvous);
  }
  return bytes;
}

// Alike ranks fold into one replay when the fold holds; when a check finds
// an image that would have seen something else, the replay starts over with
// every rank, so the answer is always the full replay's.
ExecutionResult Executor::run() {
  folded_replicas_ = 1;
  fold_abandoned_.reset();
  if (mode_ == ReplayMode::fold_alike) fold_ = fold_replicas(trace_, system_);
  if (mode_ == ReplayMode::fold_alike && !fold_) {
    fold_abandoned_ = FoldAbandoned{"the ranks are not alike replicas (replica_fold.hpp)", 0};
  }
  if (fold_) {
    folded_replicas_ = fold_->replicas;
    ExecutionResult folded = replay_once();
    if (!fold_broken_) return folded;
    result_ = ExecutionResult{};  // free the abandoned replay's memory before the full one
    counter_memory_.reset();
    Executor full(system_, catalogue_, trace_, tuning_, overrides_);
    full.set_replay_mode(ReplayMode::every_rank);
    full.progress_ = progress_;
    full.progress_mask_ = progress_mask_;
    folded_replicas_ = 1;
    return full.run();
  }
  return replay_once();
}

ExecutionResult Executor::replay_once() {
  network_ = std::make_unique<FlowNetwork>(engine_, system_.link_capacities(), system_.count_only_links());
  collectives_ = std::make_unique<CollectiveRunner>(engine_, *network_, system_, tuning_);
  // With the machine's facts (nodes, rails, NVSwitch, SHARP) the runner
  // chooses each collective's algorithm and protocol by size as NCCL does.
  CollectiveTopology topology = describe_collective_topology(system_, overrides_.sharp);
  topology.ctas = overrides_.ctas;
  collectives_->set_topology(std::move(topology));
  shape_programs();
  kernel_times_.clear();
  ranks_.assign(trace_.ranks.size(), RankState{});
  open_calls_.assign(trace_.groups.size(), OpenCalls{});
  group_requests_.assign(trace_.groups.size(), CollectiveRequest{});
  group_memos_.assign(trace_.groups.size(), CollectiveRunner::Memo{});
  group_across_nodes_.assign(trace_.groups.size(), false);
  calls_.clear();
  transfers_.clear();
  checks_.clear();
  local_usage_.clear();
  fold_broken_ = false;
  fold_drift_ = 0;
  pending_peers_.clear();
  result_ = ExecutionResult{};
  const std::size_t ops = trace_.op_count();
  result_.timing_memory = std::make_shared<RunArena>(result_bytes());
  counter_memory_ = std::make_unique<RunArena>(ops * sizeof(DepCount));
  result_.timelines.reserve(trace_.ranks.size());
  result_.meetings.reserve(trace_.ranks.size());
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) prepare_rank(r);
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
    if (fold_ && !fold_->represents(r)) continue;
    for (std::size_t s = 0; s < kStreamCount; ++s) try_start_stream(r, s);
  }
  replay();
  fence_streaming_stores();
  if (fold_broken_) return {};

  for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
    if (fold_ && !fold_->represents(r)) continue;
    if (ranks_[r].finished_ops() != ranks_[r].ops->size()) {
      throw std::runtime_error(
          "the trace deadlocked: rank " + std::to_string(r) + " finished " + std::to_string(ranks_[r].finished_ops()) +
          " of " + std::to_string(ranks_[r].ops->size()) + " ops (a collective some group member never reaches?)");
    }
    RankTimeline& timeline = result_.timelines[r];
    for (const OpTiming& t : timeline.ops) timeline.finish = std::max(timeline.finish, t.end);
    result_.step_time = std::max(result_.step_time, timeline.finish);
  }
  result_.events = engine_.events_processed();
  result_.flows = network_->flows_started();
  result_.links.resize(system_.num_links());
  for (LinkId l = 0; l < result_.links.size(); ++l) {
    result_.links[l] = LinkUsage{network_->bytes_carried(l), network_->busy_time(l)};
  }
  spread_bundle_usage();
  if (fold_ && !fold_broken_ && !unfold()) {
    abandon_fold("a link of an image node carried other bytes than the representative's (unfold_links)");
  }
  std::sort(result_.collectives.begin(), result_.collectives.end(),
            [](const CollectiveUsage& a, const CollectiveUsage& b) { return a.kind < b.kind; });
  return std::move(result_);
}

// An adaptive fabric's bundles (fabric_bundles.hpp) carried what their
// member links share evenly: the report reads cables, so each member gets
// its share of the bytes and the bundle's busy time.
void Executor::spread_bundle_usage() {
  for (LinkId b = static_cast<LinkId>(system_.num_links()); b < system_.num_flow_links(); ++b) {
    const auto& members = system_.bundle(b).members;
    const double share = network_->bytes_carried(b) / static_cast<double>(members.size());
    for (LinkId m : members) {
      result_.links[m].bytes += share;
      result_.links[m].busy = std::max(result_.links[m].busy, network_->busy_time(b));
    }
  }
}

// Streams run their ops in list order, one at a time, like CUDA streams: the
// head op starts once its dependencies are done and the stream is free.
void Executor::try_start_stream(std::uint32_t rank, std::size_t stream) {
  RankState& state = ranks_[rank];
  const auto& order = state.shape->stream_order[stream];
  if (state.stream_busy[stream] || state.stream_head[stream] >= order.size()) return;
  OpIndex op = order[state.stream_head[stream]];
  if (state.unfinished_deps[op] != 0) return;
  state.stream_busy[stream] = true;
  const TimePs issued = issued_at(*state.shape, op);
  if (issued > engine_.now()) {
    // The stream is free before the host has issued the op: it waits.
    engine_.schedule_at(issued, [this, rank, op] { start_op(rank, op); });
    return;
  }
  start_op(rank, op);
}

void Executor::arrive(std::uint32_t rank, OpIndex op) {
  const Op& spec = (*ranks_[rank].ops)[op];
  if (const auto* call = std::get_if<CollectiveCall>(&spec.work)) {
    arrive_at_collective(rank, op, *call);
  } else {
    arrive_at_peer_transfer(rank, op, std::get<PeerTransfer>(spec.work));
  }
}

TimePs& Executor::running_start(RankState& state, OpIndex op) {
  return state.stream_start[stream_index(state.shape->brief[op].stream)];
}

void Executor::start_op(std::uint32_t rank, OpIndex op) {
  running_start(ranks_[rank], op) = engine_.now();
  if (ranks_[rank].shape->brief[op].compute) {
    start_compute(rank, op);
    return;
  }
  if (ranks_[rank].shape->meeting_position[op] != ProgramShape::kNoMeeting) {
    arrive(rank, op);
    return;
  }
  const Op& spec = (*ranks_[rank].ops)[op];
  if (const auto* copy = std::get_if<CopyCall>(&spec.work)) {
    start_copy(rank, op, *copy);
  } else if (std::holds_alternative<ComputeWork>(spec.work)) {
    // A kernel on another stream (an imported NCCL kernel the profile did
    // not size): it takes its time there, with no chaining.
    const TimePs end = later_by(engine_.now(), kernel_time(ranks_[rank], op));
    if (end == kTimeNever) throw ClockOverflow();
    engine_.schedule_at(end, [this, rank, op] { finish_op(rank, op); });
  } else {
    start_host_work(rank, op, std::get<HostWork>(spec.work));
  }
}

// A host pass's bytes flow over the CPU's memory bus first, then its fixed
// time runs; either may be zero.
void Executor::start_host_work(std::uint32_t rank, OpIndex op, const HostWork& host) {
  auto after_bytes = [this, rank, op, seconds = host.seconds] {
    engine_.schedule_after(seconds_to_ps(seconds), [this, rank, op] { finish_op(rank, op); });
  };
  if (host.memory_bytes <= 0.0) return after_bytes();
  if (fold_) abandon_fold("a host memory pass (not imaged)");  // replay every rank
  const auto [from, to] = host_memory_pass_endpoints(system_, ranks_[rank].endpoint);
  network_->start(system_.route(from, to), host.memory_bytes, after_bytes);
}

TimePs Executor::kernel_time(const RankState& state, OpIndex op) const {
  return kernel_time_at_speed(state.kernels->time[op], state.compute_speed);
}

// The op after the running kernel on the compute stream, or kNoOp.
OpIndex Executor::next_kernel(const RankState& state) {
  const auto& order = state.shape->stream_order[stream_index(Stream::compute)];
  const std::size_t next_position = state.stream_head[stream_index(Stream::compute)] + 1;
  return next_position < order.size() ? order[next_position] : kNoOp;
}

// Whether `dependent`, released by the running kernel's end, can arrive
// with that end as its timestamp instead of at an event: a collective or
// transfer at the head of its idle stream that waits for nothing else.
bool Executor::arrives_with_timestamp(const RankState& state, OpIndex dependent, TimePs at) {
  const ProgramShape& shape = *state.shape;
  if (shape.meeting_position[dependent] == ProgramShape::kNoMeeting) return false;
  // Not yet issued by the host at `at`: it arrives when it is, at an event.
  if (issued_at(shape, dependent) > at) return false;
  const std::size_t stream = stream_index(shape.brief[dependent].stream);
  const auto& order = shape.stream_order[stream];
  const bool at_head = state.stream_head[stream] < order.size() && order[state.stream_head[stream]] == dependent;
  return at_head && !state.stream_busy[stream] && state.unfinished_deps[dependent] == 1;
}

// The kernel after `op` on the compute stream, if it may start the moment
// `op` ends without any event at that end: it waits for nothing but `op`,
// and everything else `op` releases arrives with a timestamp. Running such
// a chain in one event gives every op the timing it would get event by
// event: at `op`'s end the next kernel would start and the released
// collectives and transfers would arrive, at the same instant.
std::optional<OpIndex> Executor::chained_kernel(const RankState& state, OpIndex op, TimePs end) const {
  const OpIndex next = next_kernel(state);
  if (next == kNoOp || !state.shape->brief[next].compute) return std::nullopt;
  const ProgramShape& shape = *state.shape;
  std::uint32_t waits_on_op = 0;
  for (std::uint32_t d = shape.dependents_start[op]; d < shape.dependents_start[op + 1]; ++d) {
    const OpIndex dependent = shape.dependents[d];
    if (dependent == next) {
      ++waits_on_op;
    } else if (!arrives_with_timestamp(state, dependent, end)) {
      return std::nullopt;
    }
  }
  if (state.unfinished_deps[next] != waits_on_op) return std::nullopt;
  return next;
}

void Executor::start_compute(std::uint32_t rank, OpIndex op) {
  RankState& state = ranks_[rank];
  TimePs end = later_by(engine_.now(), kernel_time(state, op));
  while (const auto next = chained_kernel(state, op, end)) {
    if (end == kTimeNever) throw ClockOverflow();
    settle_kernel(rank, op, end);  // the next kernel's count reaches zero here too
    op = *next;
    const TimePs start = std::max(end, issued_at(*state.shape, op));
    state.stream_start[stream_index(Stream::compute)] = start;
    end = later_by(start, kernel_time(state, op));
  }
  if (end == kTimeNever) throw ClockOverflow();
  if (closes_early(state, op, end)) {
    state.stream_busy[stream_index(Stream::compute)] = false;
    settle_kernel(rank, op, end);
  } else {
    engine_.schedule_at(end, [this, rank, op] { finish_op(rank, op); });
  }
}

// Whether a kernel's end can be settled now, with no event at its end: all
// it releases arrive with a timestamp, and the next kernel waits for one of
// them (so it cannot start before the end either). Everything then happens
// at the same simulated times as event by event.
bool Executor::closes_early(const RankState& state, OpIndex op, TimePs end) const {
  const ProgramShape& shape = *state.shape;
  const OpIndex next = next_kernel(state);
  const bool has_next = next != kNoOp;
  bool next_waits = !has_next;
  bool releases_any = false;
  for (std::uint32_t d = shape.dependents_start[op]; d < shape.dependents_start[op + 1]; ++d) {
    const OpIndex dependent = shape.dependents[d];
    if (has_next && dependent == next) continue;
    if (!arrives_with_timestamp(state, dependent, end)) return false;
    releases_any = true;
    if (has_next && waits_for(shape, next, dependent)) next_waits = true;
  }
  return releases_any && next_waits;
}

bool Executor::waits_for(const ProgramShape& shape, OpIndex op, OpIndex dependency) {
  for (std::uint32_t d = shape.dependents_start[dependency]; d < shape.dependents_start[dependency + 1]; ++d) {
    if (shape.dependents[d] == op) return true;
  }
  return false;
}

// Finishes kernel `op` as of `end`, ahead of the clock: counts it done for
// its dependents and lets the collectives and transfers it releases arrive
// at `end`, stream by stream as finish_op would start them.
void Executor::settle_kernel(std::uint32_t rank, OpIndex op, TimePs end) {
  RankState& state = ranks_[rank];
  store_streaming(state.timing[op], OpTiming{state.stream_start[stream_index(Stream::compute)], end});
  ++state.stream_head[stream_index(Stream::compute)];
  const ProgramShape& shape = *state.shape;
  std::array<std::optional<OpIndex>, kStreamCount> released;
  for (std::uint32_t d = shape.dependents_start[op]; d < shape.dependents_start[op + 1]; ++d) {
    const OpIndex dependent = shape.dependents[d];
    const Stream stream = shape.brief[dependent].stream;
    if (--state.unfinished_deps[dependent] == 0 && stream != Stream::compute) {
      released[stream_index(stream)] = dependent;
    }
  }
  for (std::size_t s = 0; s < kStreamCount; ++s) {
    if (!released[s]) continue;
    state.stream_busy[s] = true;
    state.stream_start[s] = end;
    arrive(rank, *released[s]);
  }
}

// A collective starts only when every member has reached its k-th call in
// that group, as NCCL's kernels wait for all peers. Each member reaches its
// k-th call before its (k+1)-th, so a group's calls complete in order and
// the open ones form a queue: the front is call first_call.
void Executor::arrive_at_collective(std::uint32_t rank, OpIndex op, const CollectiveCall& call) {
  auto& slots = ranks_[rank].group_slots;
  if (call.group >= slots.size()) {
    throw std::runtime_error("rank " + std::to_string(rank) + " calls a collective on unknown group " +
                             std::to_string(call.group));
  }
  RankState::GroupSlot& slot = slots[call.group];
  const std::uint32_t group = slot.group;
  OpenCalls& open = open_calls_[group];
  const std::uint32_t number = slot.calls++;
  // A member can only be at or ahead of the group's oldest open call; behind
  // it means two communicators share one group id (a trace built wrongly).
  if (number < open.first_call || open.head + (number - open.first_call) > open.calls.size()) {
    throw std::logic_error("rank " + std::to_string(rank) + " makes call " + std::to_string(number) + " on group " +
                           std::to_string(group) + ", whose calls before " + std::to_string(open.first_call) +
                           " are done: two communicators share the group");
  }
  const std::size_t position = open.head + (number - open.first_call);
  if (position == open.calls.size()) open.calls.push_back(calls_.acquire());
  const std::uint32_t instance = open.calls[position];
  calls_[instance].arrived.emplace_back(rank, op);
  // In a folded replay only the representative's members of a data-parallel
  // group arrive, standing for their images, which arrive with them.
  const bool spanning = fold_ && fold_->role[group] == ReplicaFold::Role::spanning;
  if (calls_[instance].arrived.size() < (spanning ? fold_->spanning_share[group] : trace_.groups[group].size())) return;
  if (position != open.head) throw std::logic_error("a group's collective completed ahead of an earlier one");
  ++open.first_call;
  if (++open.head == open.calls.size()) open.calls.clear(), open.head = 0;
  launch_collective(group, instance);
}

// The request for a group: its members never change, so it is built once.
CollectiveRequest& Executor::request_for(std::uint32_t group) {
  CollectiveRequest& request = group_requests_[group];
  if (request.members.empty()) {
    for (std::uint32_t member : trace_.groups[group]) request.members.push_back(ranks_[member].endpoint);
    group_across_nodes_[group] = spans_nodes(request.members);
  }
  return request;
}

void Executor::launch_collective(std::uint32_t group, std::uint32_t instance) {
  const auto& arrived = calls_[instance].arrived;
  const auto [first_rank, first_op] = arrived.front();
  const auto& call = std::get<CollectiveCall>((*ranks_[first_rank].ops)[first_op].work);
  CollectiveRequest& request = request_for(group);
  request.op = call.op;
  request.bytes = call.bytes;
  request.algorithm = overrides_.for_op(call.op);
  // Members may have arrived ahead of the clock (settle_kernel): the
  // collective starts when the last of them arrives.
  OpRef last{first_rank, first_op};
  TimePs ready = running_start(ranks_[last.rank], last.op);
  for (const auto& [rank, op] : arrived) {
    const TimePs start = running_start(ranks_[rank], op);
    if (start > ready || (start == ready && rank < last.rank)) last = OpRef{rank, op}, ready = start;
  }
  for (const auto& [rank, op] : arrived) record_meeting(rank, op, Rendezvous{ready, last});
  const TimePs start = std::max(ready, engine_.now());
  const std::uint64_t keys_before = collectives_->flow_keys_taken();
  const auto choice = collectives_->start_at(
      start, request, [this, instance] { finish_call(instance); }, &group_memos_[group]);
  const bool local = fold_ && fold_->role[group] != ReplicaFold::Role::spanning;
  if (local) launch_images(group, instance, start, keys_before);
  // The call completes from a later event, so its slot is still ours here.
  if (choice) {
    const auto ranks = static_cast<std::uint32_t>(request.members.size());
    const std::uint32_t u = usage_of(
        local ? local_usage_ : result_.collectives,
        {call.dimension, call.op, ranks, choice->algorithm, choice->protocol, group_across_nodes_[group] != 0});
    auto& usages = local ? local_usage_ : result_.collectives;
    ++usages[u].calls;
    usages[u].bytes += call.bytes;
    calls_[instance].usage = u;
    calls_[instance].local = local;
    calls_[instance].started = start;
  }
}

bool Executor::spans_nodes(const std::vector<EndpointId>& members) const {
  for (EndpointId m : members) {
    if (system_.part(m).node != system_.part(members.front()).node) return true;
  }
  return false;
}

// The accumulator of a kind; a step runs a handful of kinds, so a scan of
// them per call costs less than hashing.
std::uint32_t Executor::usage_of(std::vector<CollectiveUsage>& usages, const CollectiveKind& kind) {
  for (std::uint32_t i = 0; i < usages.size(); ++i) {
    if (usages[i].kind == kind) return i;
  }
  usages.push_back(CollectiveUsage{kind, 0, 0.0, 0});
  return static_cast<std::uint32_t>(usages.size() - 1);
}

// finish_op may open new calls, which may grow calls_: index, never hold.
void Executor::finish_call(std::uint32_t instance) {
  if (const std::uint32_t u = calls_[instance].usage; u != kNoUsage) {
    auto& usages = calls_[instance].local ? local_usage_ : result_.collectives;
    usages[u].time += engine_.now() - calls_[instance].started;
    calls_[instance].usage = kNoUsage;
  }
  if (const std::uint32_t check = calls_[instance].check; check != kNoCheck) {
    calls_[instance].check = kNoCheck;
    note_end(check);
  }
  for (std::size_t i = 0; i < calls_[instance].arrived.size(); ++i) {
    const auto [rank, op] = calls_[instance].arrived[i];
    finish_op(rank, op);
  }
  calls_[instance].arrived.clear();
  calls_.release(instance);
}

// A pageable copy runs through the pinned staging buffer in chunks
// (pageable_staging.hpp): the DMA starts once the first chunk is staged and
// can move no faster than the memcpy of the rest feeds it (a flow capped at
// that rate); coming back, the last chunk's memcpy follows the DMA.
void Executor::start_copy(std::uint32_t rank, OpIndex op, const CopyCall& copy) {
  // Named copies, not a structured binding: lambdas below capture them, which
  // clang 14 (the fuzz build's compiler) does not allow for bindings.
  const std::pair<EndpointId, EndpointId> ends = copy_endpoints(system_, ranks_[rank].endpoint, copy.direction);
  const EndpointId from = ends.first;
  const EndpointId to = ends.second;
  const double bytes = copy.bytes;
  if (!copy.pageable || copy.direction == CopyDirection::storage_to_host) {
    if (fold_) {
      const std::uint32_t check = image_flows(rank, copy.direction, bytes);
      network_->start(system_.route(from, to), bytes, [this, rank, op, check] {
        note_end(check);
        finish_op(rank, op);
      });
      return;
    }
    network_->start(system_.route(from, to), bytes, [this, rank, op] { finish_op(rank, op); });
    return;
  }
  if (fold_) abandon_fold("a pageable copy (not imaged)");  // replay every rank
  const CpuSpec& cpu = host_cpu(system_, catalogue_, ranks_[rank].endpoint);
  const TimePs chunk = first_staging_chunk(cpu, static_cast<Bytes>(bytes)).time;
  const double memcpy_rate = staged_dma_rate_cap(cpu, static_cast<Bytes>(bytes));
  if (copy.direction == CopyDirection::host_to_device) {
    engine_.schedule_after(chunk, [this, rank, op, from, to, bytes, memcpy_rate] {
      network_->start(
          system_.route(from, to), bytes, [this, rank, op] { finish_op(rank, op); }, {}, memcpy_rate);
    });
  } else {
    network_->start(
        system_.route(from, to), bytes,
        [this, rank, op, chunk] { engine_.schedule_after(chunk, [this, rank, op] { finish_op(rank, op); }); }, {},
        memcpy_rate);
  }
}

// A pipeline transfer's ECMP key: one per sender and receiver pair, as NCCL
// keeps one connection (queue pair, so one source port to hash) per peer.
// Keyless, every transfer would take the first least-cost route, on a fat
// tree every leaf's first spine. The top bit keeps these keys apart from the
// collectives' sequential ones.
namespace {
std::uint64_t peer_flow_key(std::uint32_t sender, std::uint32_t receiver) {
  return (std::uint64_t{1} << 63) | (static_cast<std::uint64_t>(sender) << 32) | receiver;
}
}  // namespace

void Executor::arrive_at_peer_transfer(std::uint32_t rank, OpIndex op, const PeerTransfer& transfer) {
  const std::uint32_t peer = trace_.peer(rank, transfer);
  if (peer >= ranks_.size() || peer == rank) {
    throw std::runtime_error("rank " + std::to_string(rank) + " op '" + (*ranks_[rank].ops)[op].name +
                             "' names an invalid peer rank " + std::to_string(peer));
  }
  const bool sending = transfer.side == PeerTransfer::Side::send;
  const std::uint32_t sender = sending ? rank : peer;
  const std::uint32_t receiver = sending ? peer : rank;
  PendingPeer& pending = pending_pair(rank, sender, receiver, transfer);
  (sending ? pending.sends : pending.receives).push_back(op);
  if (pending.sends.empty() || pending.receives.empty()) return;
  const OpIndex send_op = pending.sends.front();
  const OpIndex receive_op = pending.receives.front();
  pending.sends.pop_front();
  pending.receives.pop_front();
  if (!pending.path) {
    pending.path = &system_.route(ranks_[sender].endpoint, ranks_[receiver].endpoint, peer_flow_key(sender, receiver));
  }
  launch_peer_transfer(sender, receiver, send_op, receive_op, pending);
}

// The pending pair of (sender, receiver), through the rank's peer slot where
// it has one: a slot names the same peer for the whole replay, and
// pending_peers_ is node-based, so the pointer stays valid.
Executor::PendingPeer& Executor::pending_pair(std::uint32_t rank, std::uint32_t sender, std::uint32_t receiver,
                                              const PeerTransfer& transfer) {
  auto& slots = ranks_[rank].peer_pairs;
  const auto key = [&] { return (static_cast<std::uint64_t>(sender) << 32) | receiver; };
  if (transfer.peer >= slots.size()) return pending_peers_[key()];
  PendingPeer*& cached = sender == rank ? slots[transfer.peer].as_sender : slots[transfer.peer].as_receiver;
  if (!cached) cached = &pending_peers_[key()];
  return *cached;
}

// The sender's byte count is the transfer's size: a receive posts a buffer,
// the send decides what fills it.
void Executor::launch_peer_transfer(std::uint32_t sender, std::uint32_t receiver, OpIndex send_op, OpIndex receive_op,
                                    PendingPeer& pair) {
  if (images_transfer_too(sender, receiver) && pair.image_paths.empty()) {
    for (std::uint32_t j = 1; j < fold_->replicas; ++j) {
      const std::uint32_t image_sender = fold_->image(sender, j), image_receiver = fold_->image(receiver, j);
      pair.image_paths.push_back(&system_.route(ranks_[image_sender].endpoint, ranks_[image_receiver].endpoint,
                                                peer_flow_key(image_sender, image_receiver)));
    }
  }
  const std::uint32_t transfer = transfers_.acquire();
  transfers_[transfer] = TransferState{sender, receiver, send_op, receive_op, kNoCheck, &pair};
  // A side that arrived ahead of the clock (settle_kernel) starts the bytes later.
  const TimePs sent = running_start(ranks_[sender], send_op);
  const TimePs received = running_start(ranks_[receiver], receive_op);
  const TimePs both_posted = std::max(sent, received);
  const Rendezvous meeting{both_posted, received > sent ? OpRef{receiver, receive_op} : OpRef{sender, send_op}};
  record_meeting(sender, send_op, meeting);
  record_meeting(receiver, receive_op, meeting);
  if (both_posted > engine_.now()) {
    engine_.schedule_at(both_posted, [this, transfer] { start_transfer(transfer); });
  } else {
    start_transfer(transfer);
  }
}

void Executor::start_transfer(std::uint32_t transfer) {
  const TransferState& t = transfers_[transfer];
  const auto& send = std::get<PeerTransfer>((*ranks_[t.sender].ops)[t.send_op].work);
  network_->start(*t.pair->path, send.bytes, [this, transfer] { finish_transfer(transfer); });
  if (!images_transfer_too(t.sender, t.receiver)) return;
  // The images' transfers start now too, on their own routes.
  const std::uint32_t check = open_check(fold_->replicas, "pipeline transfer");
  transfers_[transfer].check = check;
  for (std::uint32_t j = 1; j < fold_->replicas; ++j) {
    network_->start(*t.pair->image_paths[j - 1], send.bytes, [this, check] { note_end(check); });
  }
}

// Under a fold, whether a pipeline transfer's images move their bytes too:
// one inside a node runs for the representative alone (below), unless the
// replicas share nodes.
bool Executor::images_transfer_too(std::uint32_t sender, std::uint32_t receiver) const {
  return fold_ && (!inside_one_node(sender, receiver) || fold_->dp_inside_nodes);
}

// A transfer inside one node runs for the representative alone, as a
// node-local collective does (TP overlap's ring steps): its images would
// load their own nodes alike, which unfold_links() checks.
bool Executor::inside_one_node(std::uint32_t sender, std::uint32_t receiver) const {
  const int node = system_.part(ranks_[sender].endpoint).node;
  return node != kNoNode && node == system_.part(ranks_[receiver].endpoint).node;
}

void Executor::finish_transfer(std::uint32_t transfer) {
  const TransferState t = transfers_[transfer];
  transfers_.release(transfer);
  if (t.check != kNoCheck) note_end(t.check);
  finish_op(t.sender, t.send_op);
  finish_op(t.receiver, t.receive_op);
}

void Executor::record_meeting(std::uint32_t rank, OpIndex op, const Rendezvous& meeting) {
  store_streaming(result_.meetings[rank][ranks_[rank].shape->meeting_position[op]], meeting);
}

void Executor::finish_op(std::uint32_t rank, OpIndex op) {
  RankState& state = ranks_[rank];
  const std::size_t stream = stream_index(state.shape->brief[op].stream);
  store_streaming(state.timing[op], OpTiming{state.stream_start[stream], engine_.now()});
  state.stream_busy[stream] = false;
  ++state.stream_head[stream];
  const ProgramShape& shape = *state.shape;
  // Only the op's own stream and the streams of dependents it released can
  // start something now; the others' heads wait on what they waited on
  // before, and trying them would read their ops' state for nothing (a
  // cache miss each on a large replay). Tried in stream order, as before.
  std::uint32_t streams_to_try = 1u << stream;
  for (std::uint32_t d = shape.dependents_start[op]; d < shape.dependents_start[op + 1]; ++d) {
    const OpIndex dependent = shape.dependents[d];
    if (--state.unfinished_deps[dependent] == 0) streams_to_try |= 1u << stream_index(shape.brief[dependent].stream);
  }
  for (std::size_t s = 0; s < kStreamCount; ++s) {
    if (streams_to_try & (1u << s)) try_start_stream(rank, s);
  }
}

}  // namespace simctl

namespace simctl {

std::uint32_t Executor::open_check(std::uint32_t parties, const char* what) {
  const std::uint32_t check = checks_.acquire();
  checks_[check] = EndCheck{-1, parties, what};
  return check;
}

// The first reason is kept: the replay stops at once after it.
void Executor::abandon_fold(std::string reason) {
  if (!fold_broken_) fold_abandoned_ = FoldAbandoned{std::move(reason), engine_.now()};
  fold_broken_ = true;
}

void Executor::note_end(std::uint32_t check) {
  EndCheck& c = checks_[check];
  if (c.end < 0) {
    c.end = engine_.now();
  } else {
    const TimePs drift = c.end > engine_.now() ? c.end - engine_.now() : engine_.now() - c.end;
    if (drift > fold_tolerance_) {
      abandon_fold(std::string("an image's ") + c.what + " ended at another time than the representative's");
    } else {
      fold_drift_ = std::max(fold_drift_, drift);
    }
  }
  if (--c.pending == 0) checks_.release(check);
}

// A folded replay's call on a group inside the representative: a group
// within one node runs for the representative alone (its images' flows stay
// in their own nodes, which unfold_links() checks), taking the ECMP keys
// the images would take; a group across nodes runs for every image too.
void Executor::launch_images(std::uint32_t group, std::uint32_t instance, TimePs start, std::uint64_t keys_before) {
  const std::uint32_t others = fold_->replicas - 1;
  if (fold_->role[group] == ReplicaFold::Role::node_local) {
    collectives_->skip_flow_keys((collectives_->flow_keys_taken() - keys_before) * others);
    return;
  }
  const CollectiveRequest& request = group_requests_[group];
  const std::uint32_t check = open_check(fold_->replicas, "collective across nodes");
  calls_[instance].check = check;
  for (std::uint32_t j = 1; j <= others; ++j) {
    const std::uint32_t image_group = fold_->group_image[group][j];
    CollectiveRequest& image = request_for(image_group);
    image.op = request.op;
    image.bytes = request.bytes;
    image.algorithm = request.algorithm;
    collectives_->start_at(
        start, image, [this, check] { note_end(check); }, &group_memos_[image_group]);
  }
}

// The images of a copy of `rank`'s, started now; returns their end check.
std::uint32_t Executor::image_flows(std::uint32_t rank, CopyDirection direction, double bytes) {
  const std::uint32_t check = open_check(fold_->replicas, "copy");
  for (std::uint32_t j = 1; j < fold_->replicas; ++j) {
    const auto ends = copy_endpoints(system_, ranks_[fold_->image(rank, j)].endpoint, direction);
    network_->start(system_.route(ends.first, ends.second), bytes, [this, check] { note_end(check); });
  }
  return check;
}

// After a folded replay: the images' link usage, timings, meetings and
// collective counts, as a replay of every rank would have produced them;
// false when a link shows the images would have seen other contention.
bool Executor::unfold() {
  if (!unfold_links()) return false;
  result_.copy_of.resize(ranks_.size());
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) result_.copy_of[r] = r;
  auto images = std::make_shared<ImageMeetings>();
  images->replica_of = fold_->replica_of;
  images->position_of = fold_->position_of;
  images->members = fold_->members;
  images->spanning.resize(ranks_.size());
  for (std::uint32_t r = 0; r < ranks_.size(); ++r) {
    if (fold_->represents(r)) unfold_rank(r, *images);
  }
  result_.image_meetings = std::move(images);
  for (const CollectiveUsage& local : local_usage_) {
    CollectiveUsage& u = result_.collectives[usage_of(result_.collectives, local.kind)];
    u.calls += local.calls * fold_->replicas;
    u.bytes += local.bytes * fold_->replicas;
    u.time += local.time * fold_->replicas;
  }
  return true;
}

// Byte totals summed from the same flows in another order (a link's flows
// end in the order of their events) differ in the last bits of a double.
namespace {
bool same_bytes(double a, double b) { return std::abs(a - b) <= 1e-9 * std::max(std::abs(a), std::abs(b)); }
}  // namespace

// Flows the folded replay ran for the representative alone (node-local
// collectives) are in its nodes only. Link by link, a representative's node
// and each image must then carry the same bytes, except links inside the
// node that carry nothing in the image: those carry only the
// representative's node-local flows, and the image's copy of them would have
// run there alone, so the image gets the representative's usage. Anything
// else (node-local bytes on a cable leaving the node, or on a link that
// other flows use too) means the images would have contended differently.
bool Executor::unfold_links() {
  for (std::size_t n0 = 0; n0 < fold_->node_image.size(); ++n0) {
    const auto& images = fold_->node_image[n0];
    const auto& links = fold_->node_links[n0];
    for (std::uint32_t j = 1; j < images.size(); ++j) {
      const auto& image_links = fold_->node_links[static_cast<std::size_t>(images[j])];
      for (std::size_t i = 0; i < links.size(); ++i) {
        const LinkUsage& rep = result_.links[links[i]];
        LinkUsage& image = result_.links[image_links[i]];
        if (same_bytes(rep.bytes, image.bytes)) continue;
        if (!fold_->link_inside[n0][i] || image.bytes != 0.0) return false;
        image = rep;
      }
    }
  }
  return true;
}

// Points representative `rep`'s images at its timings and meetings (copy_of:
// they are shared, not copied) and marks which meetings span the replicas:
// elsewhere an image's last arrival is its own party, but a data-parallel
// group's members all arrive at once, so a full replay names the lowest rank
// (the representative's, as fold_replicas checked).
void Executor::unfold_rank(std::uint32_t rep, ImageMeetings& images) {
  const ProgramShape& shape = *ranks_[rep].shape;
  const std::vector<Op>& ops = *ranks_[rep].ops;
  std::vector<bool>& spanning = images.spanning[rep];
  spanning.assign(shape.meeting_count, false);
  for (OpIndex i = 0; i < ops.size(); ++i) {
    const auto* call = std::get_if<CollectiveCall>(&ops[i].work);
    if (call && fold_->role[trace_.group(rep, *call)] == ReplicaFold::Role::spanning) {
      spanning[shape.meeting_position[i]] = true;
    }
  }
  for (std::uint32_t j = 1; j < fold_->replicas; ++j) {
    result_.copy_of[fold_->image(rep, j)] = rep;  // timeline(image) and meeting() now read the representative's
  }
}

}  // namespace simctl
