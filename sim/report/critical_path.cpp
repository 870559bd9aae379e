#include "sim/report/critical_path.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <optional>

#include "sim/exec/program_shape.hpp"

namespace simctl {
namespace {

constexpr OpIndex kNoOp = UINT32_MAX;

// prev[program][op]: the op before it on the same stream, or kNoOp. It
// depends on the program alone, so ranks sharing a program share it.
std::vector<std::vector<OpIndex>> stream_predecessors(const Trace& trace) {
  std::vector<std::vector<OpIndex>> prev(trace.programs.size());
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const auto& ops = trace.programs[p];
    prev[p].assign(ops.size(), kNoOp);
    std::array<OpIndex, kStreamCount> last;
    last.fill(kNoOp);
    for (OpIndex i = 0; i < ops.size(); ++i) {
      OpIndex& on_stream = last[static_cast<std::size_t>(ops[i].stream)];
      prev[p][i] = on_stream;
      on_stream = i;
    }
  }
  return prev;
}

std::string resource_of(const Trace& trace, OpRef ref) {
  const Op& op = trace.ops(ref.rank)[ref.op];
  const std::string rank = "rank " + std::to_string(ref.rank);
  if (std::holds_alternative<ComputeWork>(op.work)) return rank + " compute";
  if (const auto* c = std::get_if<CollectiveCall>(&op.work)) {
    const std::uint32_t group = trace.group(ref.rank, *c);
    const std::size_t members = group < trace.groups.size() ? trace.groups[group].size() : 0;
    return std::string(to_string(c->dimension)) + " " + std::string(to_string(c->op)) + " over " +
           std::to_string(members) + " ranks";
  }
  if (const auto* t = std::get_if<PeerTransfer>(&op.work)) {
    const bool send = t->side == PeerTransfer::Side::send;
    const std::uint32_t peer = trace.peer(ref.rank, *t);
    const auto from = send ? ref.rank : peer, to = send ? peer : ref.rank;
    return std::string(to_string(t->dimension)) + " send rank " + std::to_string(from) + "->" + std::to_string(to);
  }
  if (std::holds_alternative<HostWork>(op.work)) {
    return rank + (op.phase == OpPhase::optimizer ? " host optimizer step" : " host preprocessing");
  }
  const auto& copy = std::get<CopyCall>(op.work);
  const char* what = copy.direction == CopyDirection::host_to_device   ? "host->device copy"
                     : copy.direction == CopyDirection::device_to_host ? "device->host copy"
                                                                       : "storage->host read";
  return rank + " " + what;
}

OpRef last_finishing(const ExecutionResult& result) {
  OpRef best{};
  TimePs end = -1;
  for (std::uint32_t r = 0; r < result.rank_count(); ++r) {
    for (OpIndex i = 0; i < result.timeline(r).ops.size(); ++i) {
      if (result.timeline(r).ops[i].end > end) end = result.timeline(r).ops[i].end, best = {r, i};
    }
  }
  return best;
}

// What gated `ref`'s start: the latest-ending of its deps and stream predecessor.
std::optional<OpRef> gate_of(const Trace& trace, const ExecutionResult& result,
                             const std::vector<std::vector<OpIndex>>& prev, OpRef ref) {
  std::optional<OpIndex> best;
  if (const OpIndex before = prev[trace.ranks[ref.rank].program][ref.op]; before != kNoOp) best = before;
  const auto& timeline = result.timeline(ref.rank).ops;
  for (OpIndex d : trace.ops(ref.rank)[ref.op].deps) {
    if (!best || timeline[d].end > timeline[*best].end) best = d;
  }
  if (!best) return std::nullopt;
  return OpRef{ref.rank, *best};
}

std::vector<ResourceShare> shares(const std::vector<PathOp>& ops) {
  std::map<std::string, TimePs> time;
  for (const PathOp& p : ops) time[p.resource] += p.end - p.start;
  std::vector<ResourceShare> out;
  for (const auto& [resource, t] : time) out.push_back({resource, t});
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.time > b.time; });
  return out;
}

}  // namespace

CriticalPath critical_path(const Trace& trace, const ExecutionResult& result, const RendezvousTable& rendezvous) {
  CriticalPath path;
  if (result.step_time == 0) return path;
  const auto prev = stream_predecessors(trace);
  std::optional<OpRef> current = last_finishing(result);
  TimePs reached = result.step_time;  // the path covers [reached, step) so far
  std::size_t budget = 0;             // every op at most once: a guard against zero-time cycles
  budget = trace.op_count();
  while (current && budget-- > 0) {
    const OpTiming& t = result.timeline(current->rank).ops[current->op];
    const Rendezvous rv = rendezvous.at(current->rank, current->op);
    const TimePs start = std::min(std::max(rv.ready, t.start), t.end);
    path.gaps += std::max<TimePs>(0, reached - t.end);
    path.ops.push_back({*current, trace.ops(current->rank)[current->op].name, resource_of(trace, *current), start,
                        std::min(t.end, reached)});
    reached = start;
    // A rendezvous that waited on a later party continues through that party.
    const OpRef gated = rv.last_arrival == *current ? *current : rv.last_arrival;
    current = gate_of(trace, result, prev, gated);
    if (current && result.timeline(current->rank).ops[current->op].end > reached) current.reset();  // no progress
  }
  path.gaps += reached;  // before the first op on the path
  std::reverse(path.ops.begin(), path.ops.end());
  path.resources = shares(path.ops);
  return path;
}

std::vector<PathOp> longest_ops(const CriticalPath& path, std::size_t count) {
  std::vector<PathOp> ops = path.ops;
  std::stable_sort(ops.begin(), ops.end(),
                   [](const PathOp& a, const PathOp& b) { return a.end - a.start > b.end - b.start; });
  if (ops.size() > count) ops.resize(count);
  return ops;
}

}  // namespace simctl
