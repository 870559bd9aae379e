#include "sim/report/breakdown.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <limits>
#include <optional>
#include <stdexcept>
#include <utility>

#include "sim/exec/program_shape.hpp"

namespace simctl {
namespace {

// One stretch of time a rank spends in one category.
struct Segment {
  TimePs start = 0;
  TimePs end = 0;
  Category category = Category::waiting;
};

Category copy_category(const Op& op, const CopyCall& copy) {
  const bool loading = op.phase == OpPhase::data_loading || copy.direction == CopyDirection::storage_to_host;
  return loading ? Category::data_loading : Category::host_copy;
}

// A CPU optimizer step (ZeRO-Offload) is the optimizer's time. Host time
// on a GPU stream outside the loader's phase is the host not launching the
// next kernel in time (a Kineto import's launch gaps): launch-bound. Other
// host work is the loader's.
Category host_category(const Op& op) {
  if (op.phase == OpPhase::optimizer) return Category::optimizer;
  const bool gpu_stream = op.stream == Stream::compute || op.stream == Stream::communication;
  if (gpu_stream && op.phase != OpPhase::data_loading) return Category::compute_launch_bound;
  return Category::data_loading;
}

Category compute_category(const Op& op, KernelBound bound) {
  if (op.phase == OpPhase::optimizer) return Category::optimizer;
  switch (bound) {
    case KernelBound::memory: return Category::compute_memory_bound;
    case KernelBound::launch: return Category::compute_launch_bound;
    case KernelBound::compute: break;
  }
  return Category::compute_bound;
}

// A communication op first waits for its peers, then moves bytes. Waiting
// for a pipeline peer is the bubble; waiting for a collective's members is
// plain waiting, the category everything unclaimed falls to anyway.
void add_communication(CommDimension dimension, const OpTiming& timing, TimePs ready, std::vector<Segment>& out) {
  const TimePs moving_from = std::clamp(ready, timing.start, timing.end);
  if (dimension == CommDimension::pipeline) out.push_back({timing.start, moving_from, Category::pipeline_bubble});
  out.push_back({moving_from, timing.end, comm_category(dimension)});
}

bool is_pipeline_transfer(const Op& op) {
  const auto* t = std::get_if<PeerTransfer>(&op.work);
  return t != nullptr && t->dimension == CommDimension::pipeline;
}

// Segments per stream, each list in time order (a stream runs one op at a
// time, in list order), plus one list for the drain bubble.
using StreamSegments = std::array<std::vector<Segment>, kStreamCount + 1>;

// Where a trace's host issues ops late (Trace::host_issue_seconds_per_op), a
// stream that sat idle before an op because the host had not issued it yet
// was launch-bound: the stretch from when the op could have run (its stream
// and its dependencies done) to its start at its issue time.
class HostWaits {
 public:
  explicit HostWaits(const std::vector<TimePs>& issued) : issued_(issued) {}

  void add(const std::vector<Op>& ops, const RankTimeline& timeline, OpIndex i, std::vector<Segment>& out) {
    if (issued_.empty()) return;
    const std::size_t stream = stream_index(ops[i].stream);
    const OpTiming& t = timeline.ops[i];
    const TimePs stream_free = std::exchange(stream_free_[stream], t.end);
    // Only an op that started at its issue time can have waited for it.
    if (t.start != issued_[i] || meets_others(ops[i]) || !issued_by_host(ops[i])) return;
    TimePs ready = stream_free;
    for (OpIndex d : ops[i].deps) ready = std::max(ready, timeline.ops[d].end);
    if (t.start > ready) out.push_back({ready, t.start, Category::compute_launch_bound});
  }

 private:
  const std::vector<TimePs>& issued_;
  std::array<TimePs, kStreamCount> stream_free_{};
};

// Each program's issue times (host_issue_times), computed once for the
// ranks bound to it; all empty when the trace's host is never the bound.
class IssueTimes {
 public:
  explicit IssueTimes(const Trace& trace) : trace_(trace), by_program_(trace.programs.size()) {}
  const std::vector<TimePs>& of(std::uint32_t rank) {
    auto& issued = by_program_[trace_.ranks[rank].program];
    if (issued.empty())  // not yet computed (an empty program recomputes to empty: nothing)
      issued = host_issue_times(trace_.ops(rank), seconds_to_ps(trace_.host_issue_seconds_per_op));
    return issued;
  }

 private:
  const Trace& trace_;
  std::vector<std::vector<TimePs>> by_program_;
};

void fill_segments(const Trace& trace, const ExecutionResult& result, const RendezvousTable& rendezvous,
                   std::uint32_t rank, const std::vector<TimePs>& issued, StreamSegments& lists) {
  for (auto& list : lists) list.clear();
  const auto& ops = trace.ops(rank);
  const auto& timeline = result.timeline(rank);
  bool pipelined = false;
  HostWaits host_waits(issued);
  for (OpIndex i = 0; i < ops.size(); ++i) {
    const OpTiming& t = timeline.ops[i];
    std::vector<Segment>& out = lists[static_cast<std::size_t>(ops[i].stream)];
    host_waits.add(ops, timeline, i, out);
    if (std::holds_alternative<ComputeWork>(ops[i].work)) {
      out.push_back({t.start, t.end, compute_category(ops[i], timeline.kernel_bound(i))});
    } else if (const auto* copy = std::get_if<CopyCall>(&ops[i].work)) {
      out.push_back({t.start, t.end, copy_category(ops[i], *copy)});
    } else if (std::holds_alternative<HostWork>(ops[i].work)) {
      out.push_back({t.start, t.end, host_category(ops[i])});
    } else if (const auto* call = std::get_if<CollectiveCall>(&ops[i].work)) {
      add_communication(call->dimension, t, rendezvous.at(rank, i).ready, out);
    } else {
      add_communication(std::get<PeerTransfer>(ops[i].work).dimension, t, rendezvous.at(rank, i).ready, out);
      pipelined = pipelined || is_pipeline_transfer(ops[i]);
    }
  }
  // A pipeline stage that finishes early sits out the drain of the others.
  if (pipelined) lists.back().push_back({timeline.finish, result.step_time, Category::pipeline_bubble});
}

std::uint32_t bit(Category c) { return 1u << static_cast<unsigned>(c); }

// A stream runs one op at a time, so at any instant each list has at most
// one segment in force. The sweep walks the lists side by side from
// boundary to boundary; each stretch goes to the first category in force in
// priority order (the lowest set bit of the mask).
TimeBreakdown sweep(const StreamSegments& lists, TimePs step) {
  std::uint32_t compute_mask = 0, communication_mask = 0;
  for (Category c : kAllCategories) {
    if (is_compute(c)) compute_mask |= bit(c);
    if (is_communication(c)) communication_mask |= bit(c);
  }
  for (const auto& list : lists) {
    for (std::size_t k = 1; k < list.size(); ++k) {
      if (list[k].start < list[k - 1].end) throw std::logic_error("breakdown: two ops of one stream overlap in time");
    }
  }
  std::array<std::size_t, kStreamCount + 1> next{};  // per list, the first segment not yet over
  TimeBreakdown b;
  b.step = step;
  TimePs now = 0;
  while (true) {
    TimePs boundary = std::numeric_limits<TimePs>::max();
    std::uint32_t mask = 0;
    for (std::size_t s = 0; s < lists.size(); ++s) {
      auto& k = next[s];
      while (k < lists[s].size() && lists[s][k].end <= now) ++k;
      if (k == lists[s].size()) continue;
      const Segment& seg = lists[s][k];
      if (seg.start <= now) {
        mask |= bit(seg.category);
        boundary = std::min(boundary, seg.end);
      } else {
        boundary = std::min(boundary, seg.start);
      }
    }
    if (boundary == std::numeric_limits<TimePs>::max()) break;
    const TimePs length = std::min(boundary, step) - std::min(now, step);
    if (length > 0 && mask != 0) {
      const auto owner = static_cast<Category>(std::countr_zero(mask));
      if (owner != Category::waiting) b[owner] += length;
      if ((mask & compute_mask) && (mask & communication_mask)) b.overlapped_communication += length;
    }
    now = boundary;
  }
  TimePs claimed = 0;
  for (Category c : kAllCategories) claimed += c == Category::waiting ? 0 : b[c];
  b[Category::waiting] = step - claimed;  // whatever nothing claims is waiting
  return b;
}

}  // namespace

TimePs TimeBreakdown::compute() const {
  return (*this)[Category::compute_bound] + (*this)[Category::compute_memory_bound] +
         (*this)[Category::compute_launch_bound] + (*this)[Category::optimizer];
}

TimePs TimeBreakdown::exposed_communication() const {
  TimePs sum = 0;
  for (CommDimension d : kAllDimensions) sum += (*this)[comm_category(d)];
  return sum;
}

TimePs TimeBreakdown::exposed_copy() const { return (*this)[Category::data_loading] + (*this)[Category::host_copy]; }
TimePs TimeBreakdown::idle() const { return (*this)[Category::pipeline_bubble] + (*this)[Category::waiting]; }

TimePs TimeBreakdown::sum() const {
  TimePs total = 0;
  for (TimePs t : time) total += t;
  return total;
}

TimeBreakdown rank_breakdown(const Trace& trace, const ExecutionResult& result, const RendezvousTable& rendezvous,
                             std::uint32_t rank) {
  StreamSegments lists;
  IssueTimes issued(trace);
  fill_segments(trace, result, rendezvous, rank, issued.of(rank), lists);
  return sweep(lists, result.step_time);
}

std::vector<TimeBreakdown> rank_breakdowns(const Trace& trace, const ExecutionResult& result,
                                           const RendezvousTable& rendezvous) {
  const auto ranks = static_cast<std::uint32_t>(trace.ranks.size());
  // A folded replay's image holds copies of its representative's timeline
  // and meetings and runs its program, so its breakdown is the
  // representative's: swept once, copied after.
  const auto copied = [&](std::uint32_t r) { return !result.copy_of.empty() && result.copy_of[r] != r; };
  std::vector<TimeBreakdown> out(ranks);
  StreamSegments lists;  // reused: a rank's lists are as long as its ops
  IssueTimes issued(trace);
  for (std::uint32_t r = 0; r < ranks; ++r) {
    if (copied(r)) continue;
    fill_segments(trace, result, rendezvous, r, issued.of(r), lists);
    out[r] = sweep(lists, result.step_time);
  }
  for (std::uint32_t r = 0; r < ranks; ++r) {
    if (copied(r)) out[r] = out[result.copy_of[r]];
  }
  return out;
}

TimeBreakdown mean_breakdown(const std::vector<TimeBreakdown>& ranks) {
  TimeBreakdown mean;
  if (ranks.empty()) return mean;
  const auto n = static_cast<TimePs>(ranks.size());
  mean.step = ranks.front().step;
  // Summed in 128 bits: ranks whose steps near the clock's range (a fuzzed
  // trace's days-long kernels) would overflow an int64 sum.
  for (Category c : kAllCategories) {
    __int128 sum = 0;
    for (const auto& r : ranks) sum += r[c];
    mean[c] = static_cast<TimePs>(sum / n);
  }
  __int128 overlapped = 0;
  for (const auto& r : ranks) overlapped += r.overlapped_communication;
  mean.overlapped_communication = static_cast<TimePs>(overlapped / n);
  // Waiting takes the rounding remainder so the mean also sums to the step.
  mean[Category::waiting] += mean.step - mean.sum();
  return mean;
}

}  // namespace simctl
