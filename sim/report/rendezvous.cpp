#include "sim/report/rendezvous.hpp"

#include <algorithm>
#include <map>

namespace simctl {
namespace {

// Ops of one rank in the order they started (ties: list order), which is the
// order the executor saw them arrive.
std::vector<OpIndex> arrival_order(const RankTimeline& timeline) {
  std::vector<OpIndex> order(timeline.ops.size());
  for (OpIndex i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](OpIndex a, OpIndex b) { return timeline.ops[a].start < timeline.ops[b].start; });
  return order;
}

// Everyone in `parties` is ready once the last of them has started.
void settle(const std::vector<OpRef>& parties, const ExecutionResult& result, RendezvousTable& table) {
  if (parties.empty()) return;
  OpRef last = parties.front();
  for (const OpRef& p : parties) {
    if (result.ranks[p.rank].ops[p.op].start > result.ranks[last.rank].ops[last.op].start) last = p;
  }
  const TimePs ready = result.ranks[last.rank].ops[last.op].start;
  for (const OpRef& p : parties) table[p.rank][p.op] = Rendezvous{ready, last};
}

}  // namespace

RendezvousTable match_rendezvous(const Trace& trace, const ExecutionResult& result) {
  RendezvousTable table(trace.ranks.size());
  // (group, k) -> members' k-th calls; (sender, receiver) -> sends and receives.
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<OpRef>> collectives;
  std::map<std::pair<std::uint32_t, std::uint32_t>, std::pair<std::vector<OpRef>, std::vector<OpRef>>> peers;
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    const auto& ops = trace.ops(r);
    table[r].resize(ops.size());
    std::map<std::uint32_t, std::uint32_t> calls_on_group;
    for (OpIndex i : arrival_order(result.ranks[r])) {
      table[r][i] = Rendezvous{result.ranks[r].ops[i].start, OpRef{r, i}};
      if (const auto* call = std::get_if<CollectiveCall>(&ops[i].work)) {
        const std::uint32_t group = trace.group(r, *call);
        collectives[{group, calls_on_group[group]++}].push_back({r, i});
      } else if (const auto* t = std::get_if<PeerTransfer>(&ops[i].work)) {
        const bool send = t->side == PeerTransfer::Side::send;
        const std::uint32_t peer = trace.peer(r, *t);
        auto& pair = peers[send ? std::pair{r, peer} : std::pair{peer, r}];
        (send ? pair.first : pair.second).push_back({r, i});
      }
    }
  }
  for (const auto& [key, parties] : collectives) settle(parties, result, table);
  for (const auto& [key, sides] : peers) {
    const std::size_t n = std::min(sides.first.size(), sides.second.size());
    for (std::size_t k = 0; k < n; ++k) settle({sides.first[k], sides.second[k]}, result, table);
  }
  return table;
}

std::vector<TimePs> time_waited_on(const Trace& trace, const ExecutionResult& result, const RendezvousTable& table) {
  std::vector<TimePs> waited(trace.ranks.size(), 0);
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    for (OpIndex i = 0; i < trace.ops(r).size(); ++i) {
      const Rendezvous& meet = table[r][i];
      if (meet.last_arrival.rank == r) continue;
      const OpTiming& t = result.ranks[r].ops[i];
      waited[meet.last_arrival.rank] += std::clamp(meet.ready, t.start, t.end) - t.start;
    }
  }
  return waited;
}

}  // namespace simctl
