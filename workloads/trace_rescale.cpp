#include "workloads/trace_rescale.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <stdexcept>
#include <string>

#include "workloads/rank_grid.hpp"
#include "workloads/trace_size.hpp"

namespace simctl {
namespace {

using Members = std::vector<std::uint32_t>;

[[noreturn]] void refuse(const std::string& why) { throw std::invalid_argument(why); }

void check_plan(const Trace& trace, const WorkloadSpec& spec, std::int64_t new_ranks) {
  const ParallelPlan& p = spec.parallel;
  const std::int64_t replica = p.tensor * p.pipeline;
  if (spec.strategy == Strategy::data_parallel)
    refuse(
        "nn.DataParallel gathers every replica's outputs on one master GPU, so its work grows with the rank count; "
        "change parallel.data in the config instead");
  if (spec.strategy != Strategy::ddp)
    refuse(
        "ZeRO and FSDP shard state over the data-parallel ranks, so per-rank work depends on their number; "
        "change parallel.data and global_batch in the config instead");
  if (p.expert > 1)
    refuse(
        "expert parallelism ties its groups to the data-parallel degree (experts / expert per rank, gradients "
        "summed over data / expert ranks); change parallel.data in the config instead");
  if (p.context > 1)
    refuse(
        "context parallelism sums gradients over data * context ranks and ties its rings to them; change "
        "parallel.data in the config instead");
  if (!p.gpus.empty() || !trace.gpu_of_rank.empty())
    refuse(
        "the plan places ranks on chosen GPUs (parallel.gpus), and new ranks would have no place; drop "
        "parallel.gpus to rescale");
  if (static_cast<std::int64_t>(trace.ranks.size()) != p.world_size())
    refuse("the trace has " + std::to_string(trace.ranks.size()) + " ranks but its plan " +
           std::to_string(p.world_size()));
  if (new_ranks < 1 || new_ranks % replica != 0) {
    const std::string what = replica == 1 ? std::string("at least 1")
                                          : "a multiple of tensor * pipeline = " + std::to_string(p.tensor) + " * " +
                                                std::to_string(p.pipeline) + " = " + std::to_string(replica) +
                                                " (whole data-parallel replicas)";
    refuse("cannot run " + std::to_string(new_ranks) + " ranks; the rank count must be " + what);
  }
  const double ops =
      static_cast<double>(trace.op_count()) / static_cast<double>(trace.ranks.size()) * static_cast<double>(new_ranks);
  if (ops > kMaxTraceOps) {
    refuse("the rescaled trace would hold about " + std::to_string(static_cast<long long>(ops)) +
           " ops, more than the " + std::to_string(static_cast<long long>(kMaxTraceOps)) +
           " simctl builds; rescale to fewer ranks");
  }
}

// Rebuilds the trace on a grid with more (or fewer) data-parallel replicas.
class Rescaler {
 public:
  Rescaler(const Trace& trace, const ParallelPlan& old_plan, const ParallelPlan& new_plan)
      : trace_(trace), old_(old_plan), new_(new_plan), replicas_(old_plan.data), new_replicas_(new_plan.data) {}

  Trace run() {
    Trace out;
    out.compute_dtype = trace_.compute_dtype;
    out.measured_on = trace_.measured_on;
    out.host_issue_seconds_per_op = trace_.host_issue_seconds_per_op;
    const double scale = static_cast<double>(new_replicas_) / static_cast<double>(replicas_);
    out.totals = trace_.totals;
    out.totals.model_flops *= scale;
    out.totals.tokens *= scale;
    out.totals.samples *= scale;
    for (std::uint32_t r = 0; r < new_.world_size(); ++r) out.add_rank(rank_ops(r));
    out.groups = std::move(groups_);
    return out;
  }

 private:
  std::vector<Op> rank_ops(std::uint32_t new_rank) {
    const RankCoord at = new_.coord(new_rank);
    const RankCoord source{at.tensor, at.data % replicas_, at.pipeline};
    std::vector<Op> out = resolved_ops(trace_, old_.rank(source));
    for (Op& op : out) {
      if (auto* call = std::get_if<CollectiveCall>(&op.work)) call->group = group_for(call->group, at.data);
      if (auto* transfer = std::get_if<PeerTransfer>(&op.work)) transfer->peer = peer_for(transfer->peer, at.data);
    }
    return out;
  }

  // A peer in the same replica as the sender, moved to replica `data`.
  std::uint32_t peer_for(std::uint32_t old_peer, std::int64_t data) const {
    RankCoord c = old_.coord(old_peer);
    c.data = data;
    return new_.rank(c);
  }

  // A group inside one replica moves to replica `data`; a group across
  // replicas (gradient sync) spans all new replicas at the same positions.
  std::uint32_t group_for(std::uint32_t old_group, std::int64_t data) {
    const Members& old_members = trace_.groups[old_group];
    Members members;
    if (spans_replicas(old_members)) {
      for (std::uint32_t m : old_members) {
        for (std::int64_t d = 0; d < new_replicas_; ++d) members.push_back(peer_for(m, d));
      }
      std::sort(members.begin(), members.end());
      members.erase(std::unique(members.begin(), members.end()), members.end());
    } else {
      for (std::uint32_t m : old_members) members.push_back(peer_for(m, data));
    }
    const auto [it, added] = ids_.try_emplace(members, static_cast<std::uint32_t>(groups_.size()));
    if (added) groups_.push_back(members);
    return it->second;
  }

  bool spans_replicas(const Members& members) const {
    std::set<std::int64_t> data;
    for (std::uint32_t m : members) data.insert(old_.coord(m).data);
    return data.size() > 1;
  }

  const Trace& trace_;
  RankGrid old_, new_;
  std::int64_t replicas_, new_replicas_;
  std::vector<Members> groups_;
  std::map<Members, std::uint32_t> ids_;
};

// Groups must either stay inside one replica or cover every replica alike,
// and transfers must stay inside one; otherwise there is no new grid to map to.
void check_trace_shape(const Trace& trace, const ParallelPlan& plan) {
  const RankGrid grid(plan);
  for (std::size_t g = 0; g < trace.groups.size(); ++g) {
    std::set<std::int64_t> data;
    std::set<std::pair<std::int64_t, std::int64_t>> places;
    for (std::uint32_t m : trace.groups[g]) {
      const RankCoord c = grid.coord(m);
      data.insert(c.data);
      places.insert({c.tensor, c.pipeline});
    }
    if (data.size() > 1 &&
        (static_cast<std::int64_t>(data.size()) != plan.data || trace.groups[g].size() != data.size() * places.size()))
      refuse("group " + std::to_string(g) + " spans some but not all data-parallel replicas");
  }
  for (std::uint32_t r = 0; r < trace.ranks.size(); ++r) {
    for (const Op& op : trace.ops(r)) {
      const auto* t = std::get_if<PeerTransfer>(&op.work);
      if (t != nullptr && grid.coord(trace.peer(r, *t)).data != grid.coord(r).data)
        refuse("rank " + std::to_string(r) + " op '" + op.name + "' sends across data-parallel replicas");
    }
  }
}

}  // namespace

Trace rescale_data_parallel(const Trace& trace, const WorkloadSpec& spec, std::int64_t new_ranks) {
  check_plan(trace, spec, new_ranks);
  check_trace_shape(trace, spec.parallel);
  ParallelPlan wider = spec.parallel;
  wider.data = new_ranks / (spec.parallel.tensor * spec.parallel.pipeline);
  return Rescaler(trace, spec.parallel, wider).run();
}

}  // namespace simctl
