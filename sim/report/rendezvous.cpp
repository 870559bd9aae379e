#include "sim/report/rendezvous.hpp"

#include <algorithm>
#include <array>
#include <iterator>
#include <map>

#include "sim/exec/program_shape.hpp"

namespace simctl {
namespace {

// A rank's collectives and transfers in the order they started (ties: list
// order), which is the order the executor saw them arrive. Each stream runs
// its ops in list order, so the ops of one stream are already in start
// order: merging the streams' runs is enough.
std::vector<OpIndex> arrival_order(const std::vector<OpIndex>& ops, const std::vector<Op>& program,
                                   const RankTimeline& timeline) {
  std::array<std::vector<OpIndex>, kStreamCount> by_stream;
  for (OpIndex i : ops) by_stream[static_cast<std::size_t>(program[i].stream)].push_back(i);
  auto earlier = [&](OpIndex a, OpIndex b) {
    const TimePs sa = timeline.ops[a].start, sb = timeline.ops[b].start;
    return sa != sb ? sa < sb : a < b;
  };
  std::vector<OpIndex> merged;
  for (auto& run : by_stream) {
    if (!std::is_sorted(run.begin(), run.end(), earlier)) std::sort(run.begin(), run.end(), earlier);
    std::vector<OpIndex> both;
    both.reserve(merged.size() + run.size());
    std::merge(merged.begin(), merged.end(), run.begin(), run.end(), std::back_inserter(both), earlier);
    merged = std::move(both);
  }
  return merged;
}

// Everyone in `parties` is ready once the last of them has started (ties:
// the first listed).
Rendezvous last_of(const std::vector<OpRef>& parties, const ExecutionResult& result) {
  OpRef last = parties.front();
  for (const OpRef& p : parties) {
    if (result.timeline(p.rank).ops[p.op].start > result.timeline(last.rank).ops[last.op].start) last = p;
  }
  return {result.timeline(last.rank).ops[last.op].start, last};
}

}  // namespace

RendezvousTable::RendezvousTable(const Trace& trace, const ExecutionResult& result, FromTimings)
    : trace_(&trace), result_(&result), position_(trace.programs.size()), meeting_ops_(trace.programs.size()) {
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    const auto& ops = trace.programs[p];
    position_[p].assign(ops.size(), kNone);
    for (OpIndex i = 0; i < ops.size(); ++i) {
      if (!meets_others(ops[i])) continue;
      position_[p][i] = static_cast<std::uint32_t>(meeting_ops_[p].size());
      meeting_ops_[p].push_back(i);
    }
  }
}

RendezvousTable::RendezvousTable(const Trace& trace, const ExecutionResult& result)
    : RendezvousTable(trace, result, FromTimings{}) {
  if (result.meetings.size() == trace.ranks.size()) {
    recorded_ = true;
  } else {
    *this = rendezvous_from_timings(trace, result);
  }
}

const std::vector<OpIndex>& RendezvousTable::meeting_ops(std::uint32_t rank) const {
  return meeting_ops_[trace_->ranks[rank].program];
}

Rendezvous& RendezvousTable::matched(std::uint32_t rank, OpIndex op) {
  return matched_[rank][position_[trace_->ranks[rank].program][op]];
}

Rendezvous RendezvousTable::at(std::uint32_t rank, OpIndex op) const {
  const std::uint32_t position = position_[trace_->ranks[rank].program][op];
  if (position == kNone) return {result_->timeline(rank).ops[op].start, OpRef{rank, op}};
  return recorded_ ? result_->meeting(rank, position) : matched_[rank][position];
}

RendezvousTable match_rendezvous(const Trace& trace, const ExecutionResult& result) {
  return RendezvousTable(trace, result);
}

// Collectives meet in two passes: the first finds, per (group, k), the
// member that arrived last; the second hands that to every member's k-th
// call. No list of parties is kept per instance (a 1024-GPU step has 1.5 M).
RendezvousTable rendezvous_from_timings(const Trace& trace, const ExecutionResult& result) {
  RendezvousTable table(trace, result, RendezvousTable::FromTimings{});
  table.matched_.resize(trace.ranks.size());
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    for (OpIndex i : table.meeting_ops(r)) table.matched_[r].push_back({result.timeline(r).ops[i].start, OpRef{r, i}});
  }
  std::vector<std::vector<Rendezvous>> instances(trace.groups.size());  // [group][k]: the last arrival
  std::vector<std::pair<std::uint32_t, std::uint32_t>> instance_of;     // per collective visited: (group, k)
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::vector<OpRef>, std::vector<OpRef>>> peers;
  std::vector<std::uint32_t> calls_on_group(trace.groups.size());
  std::vector<std::vector<OpIndex>> order(trace.ranks.size());
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    const auto& ops = trace.ops(r);
    std::fill(calls_on_group.begin(), calls_on_group.end(), 0);
    order[r] = arrival_order(table.meeting_ops(r), ops, result.timeline(r));
    for (OpIndex i : order[r]) {
      const TimePs start = result.timeline(r).ops[i].start;
      if (const auto* call = std::get_if<CollectiveCall>(&ops[i].work)) {
        const std::uint32_t group = trace.group(r, *call);
        auto& calls = instances.at(group);
        const std::uint32_t k = calls_on_group[group]++;
        if (calls.size() <= k) calls.resize(k + 1, Rendezvous{-1, OpRef{}});
        if (start > calls[k].ready) calls[k] = Rendezvous{start, OpRef{r, i}};
        instance_of.emplace_back(group, k);
      } else {
        const auto& t = std::get<PeerTransfer>(ops[i].work);
        const bool send = t.side == PeerTransfer::Side::send;
        const std::uint32_t peer = trace.peer(r, t);
        auto& pair = peers[send ? std::pair{r, peer} : std::pair{peer, r}];
        (send ? pair.first : pair.second).push_back({r, i});
      }
    }
  }
  std::size_t visited = 0;
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    const auto& ops = trace.ops(r);
    for (OpIndex i : order[r]) {
      if (!std::holds_alternative<CollectiveCall>(ops[i].work)) continue;
      const auto [group, k] = instance_of[visited++];
      table.matched(r, i) = instances[group][k];
    }
  }
  for (const auto& [key, sides] : peers) {
    const std::size_t n = std::min(sides.first.size(), sides.second.size());
    for (std::size_t k = 0; k < n; ++k) {
      const Rendezvous meeting = last_of({sides.first[k], sides.second[k]}, result);
      table.matched(sides.first[k].rank, sides.first[k].op) = meeting;
      table.matched(sides.second[k].rank, sides.second[k].op) = meeting;
    }
  }
  return table;
}

std::vector<TimePs> time_waited_on(const Trace& trace, const ExecutionResult& result, const RendezvousTable& table) {
  std::vector<TimePs> waited(trace.ranks.size(), 0);
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    for (OpIndex i : table.meeting_ops(r)) {
      const Rendezvous meet = table.at(r, i);
      if (meet.last_arrival.rank == r) continue;
      const OpTiming& t = result.timeline(r).ops[i];
      waited[meet.last_arrival.rank] += std::clamp(meet.ready, t.start, t.end) - t.start;
    }
  }
  return waited;
}

}  // namespace simctl
