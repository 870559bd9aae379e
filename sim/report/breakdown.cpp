#include "sim/report/breakdown.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cstdlib>
#include <iterator>
#include <optional>

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

Category compute_category(const Op& op, bool memory_bound) {
  if (op.phase == OpPhase::optimizer) return Category::optimizer;
  return memory_bound ? Category::compute_memory_bound : Category::compute_bound;
}

// A communication op first waits for its peers, then moves bytes. Waiting
// for a pipeline peer is the bubble; waiting for a collective's members is
// plain waiting, the category everything unclaimed falls to anyway.
void add_communication(CommDimension dimension, const OpTiming& timing, TimePs ready, std::vector<Segment>& out) {
  const TimePs moving_from = std::clamp(ready, timing.start, timing.end);
  if (dimension == CommDimension::pipeline) out.push_back({timing.start, moving_from, Category::pipeline_bubble});
  out.push_back({moving_from, timing.end, comm_category(dimension)});
}

bool exchanges_pipeline_activations(const std::vector<Op>& ops) {
  return std::any_of(ops.begin(), ops.end(), [](const Op& op) {
    const auto* t = std::get_if<PeerTransfer>(&op.work);
    return t != nullptr && t->dimension == CommDimension::pipeline;
  });
}

// Segments per stream, each list in time order (a stream runs one op at a
// time, in list order), plus one list for the drain bubble.
using StreamSegments = std::array<std::vector<Segment>, 4>;

StreamSegments segments_of(const Trace& trace, const ExecutionResult& result, const RendezvousTable& rendezvous,
                           std::uint32_t rank) {
  const auto& ops = trace.ops(rank);
  const auto& timeline = result.ranks[rank];
  StreamSegments lists;
  for (OpIndex i = 0; i < ops.size(); ++i) {
    const OpTiming& t = timeline.ops[i];
    std::vector<Segment>& out = lists[static_cast<std::size_t>(ops[i].stream)];
    if (std::holds_alternative<ComputeWork>(ops[i].work)) {
      out.push_back({t.start, t.end, compute_category(ops[i], timeline.is_memory_bound(i))});
    } else if (const auto* copy = std::get_if<CopyCall>(&ops[i].work)) {
      out.push_back({t.start, t.end, copy_category(ops[i], *copy)});
    } else if (std::holds_alternative<HostWork>(ops[i].work)) {
      out.push_back({t.start, t.end, Category::data_loading});
    } else if (const auto* call = std::get_if<CollectiveCall>(&ops[i].work)) {
      add_communication(call->dimension, t, rendezvous.at(rank, i).ready, out);
    } else {
      add_communication(std::get<PeerTransfer>(ops[i].work).dimension, t, rendezvous.at(rank, i).ready, out);
    }
  }
  // A pipeline stage that finishes early sits out the drain of the others.
  if (exchanges_pipeline_activations(trace.ops(rank))) {
    lists.back().push_back({timeline.finish, result.step_time, Category::pipeline_bubble});
  }
  return lists;
}

using Edge = std::pair<TimePs, int>;  // (time, +-(category+1))

std::vector<Edge> edges_of(const std::vector<Segment>& segments) {
  std::vector<Edge> edges;
  edges.reserve(2 * segments.size());
  for (const Segment& s : segments) {
    if (s.end <= s.start) continue;
    const int id = static_cast<int>(s.category) + 1;
    edges.push_back({s.start, id});
    edges.push_back({s.end, -id});
  }
  return edges;
}

// All segments' boundaries in order. Each stream's list is (nearly) sorted
// already, so sorting them one by one and merging beats one big sort.
std::vector<Edge> sorted_edges(const StreamSegments& lists) {
  std::vector<Edge> merged;
  for (const auto& segments : lists) {
    std::vector<Edge> edges = edges_of(segments);
    if (!std::is_sorted(edges.begin(), edges.end())) std::sort(edges.begin(), edges.end());
    std::vector<Edge> both;
    both.reserve(merged.size() + edges.size());
    std::merge(merged.begin(), merged.end(), edges.begin(), edges.end(), std::back_inserter(both));
    merged = std::move(both);
  }
  return merged;
}

// Sweeps the segments' boundaries; each stretch between two boundaries goes
// to the first active category in priority order.
TimeBreakdown sweep(const StreamSegments& segments, TimePs step) {
  const std::vector<Edge> edges = sorted_edges(segments);
  // Categories are in priority order, so the owner of a stretch is the
  // lowest set bit of the active mask.
  std::array<int, kCategoryCount> active{};
  std::uint32_t mask = 0;
  std::uint32_t compute_mask = 0, communication_mask = 0;
  for (Category c : kAllCategories) {
    if (is_compute(c)) compute_mask |= 1u << static_cast<unsigned>(c);
    if (is_communication(c)) communication_mask |= 1u << static_cast<unsigned>(c);
  }
  TimeBreakdown b;
  b.step = step;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const int id = edges[e].second;
    const auto c = static_cast<std::size_t>(std::abs(id) - 1);
    active[c] += id > 0 ? 1 : -1;
    mask = active[c] > 0 ? mask | (1u << c) : mask & ~(1u << c);
    if (e + 1 == edges.size()) break;
    const TimePs length = std::min(edges[e + 1].first, step) - std::min(edges[e].first, step);
    if (length <= 0 || mask == 0) continue;
    const auto owner = static_cast<Category>(std::countr_zero(mask));
    if (owner != Category::waiting) b[owner] += length;
    if ((mask & compute_mask) && (mask & communication_mask)) b.overlapped_communication += length;
  }
  TimePs claimed = 0;
  for (Category c : kAllCategories) claimed += c == Category::waiting ? 0 : b[c];
  b[Category::waiting] = step - claimed;  // whatever nothing claims is waiting
  return b;
}

}  // namespace

TimePs TimeBreakdown::compute() const {
  return (*this)[Category::compute_bound] + (*this)[Category::compute_memory_bound] + (*this)[Category::optimizer];
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
  return sweep(segments_of(trace, result, rendezvous, rank), result.step_time);
}

TimeBreakdown mean_breakdown(const std::vector<TimeBreakdown>& ranks) {
  TimeBreakdown mean;
  if (ranks.empty()) return mean;
  const auto n = static_cast<TimePs>(ranks.size());
  mean.step = ranks.front().step;
  for (Category c : kAllCategories) {
    TimePs sum = 0;
    for (const auto& r : ranks) sum += r[c];
    mean[c] = sum / n;
  }
  TimePs overlapped = 0;
  for (const auto& r : ranks) overlapped += r.overlapped_communication;
  mean.overlapped_communication = overlapped / n;
  // Waiting takes the rounding remainder so the mean also sums to the step.
  mean[Category::waiting] += mean.step - mean.sum();
  return mean;
}

}  // namespace simctl
