#include "workloads/trace.hpp"

namespace simctl {

std::uint32_t Trace::add_rank(std::vector<Op> ops) {
  programs.push_back(std::move(ops));
  ranks.push_back(RankTrace{static_cast<std::uint32_t>(programs.size() - 1), {}, {}});
  return static_cast<std::uint32_t>(ranks.size() - 1);
}

std::size_t Trace::op_count() const {
  std::size_t n = 0;
  for (const RankTrace& rank : ranks) n += programs[rank.program].size();
  return n;
}

std::vector<Op> resolved_ops(const Trace& trace, std::uint32_t rank) {
  std::vector<Op> ops = trace.ops(rank);
  for (Op& op : ops) {
    if (auto* call = std::get_if<CollectiveCall>(&op.work)) call->group = trace.group(rank, *call);
    if (auto* transfer = std::get_if<PeerTransfer>(&op.work)) transfer->peer = trace.peer(rank, *transfer);
  }
  return ops;
}

}  // namespace simctl
