#include "models/network/ring_fast.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace simctl {

namespace {

// Step-by-step, a rank starts step s when both its own link is free (all
// chunks of s-1 sent: chunks x ct) and chunk 0 of s-1 has arrived from its
// predecessor (ct + L after that one started over the edge before it). The
// chain of steps walks around the ring, over every edge equally often, so
// the ring advances one step per max(chunks x ct of its slowest edge, the
// edges' mean ct + L): a network edge's longer sync is paid on the steps
// that cross it, not on every one (as NCCL's tuner counts nInterSteps
// network latencies and the rest NVLink ones). An edge's flow already spends
// steps x chunks x its ct; what the period adds to that, and its own last
// latency, is its tail.
TimePs ring_finish(const std::vector<RingEdgeTiming>& edges, const std::vector<TimePs>& latency, int steps,
                   int chunks) {
  double slowest_send = 0.0, mean_hop = 0.0;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    slowest_send = std::max(slowest_send, chunks * edges[e].chunk_seconds);
    mean_hop += edges[e].chunk_seconds + ps_to_seconds(latency[e]);
  }
  mean_hop /= static_cast<double>(edges.size());
  double period = std::max(slowest_send, mean_hop);
  // When the chain sets the pace, each link is busy only chunks x ct of each
  // period, so a chunk meets its steady-state sharers only that fraction of
  // the time: its transit shrinks toward its time alone on the link (a few
  // fixed-point rounds; the period only falls).
  for (int round = 0; round < 8 && period > slowest_send; ++round) {
    double hop = 0.0;
    for (std::size_t e = 0; e < edges.size(); ++e) {
      const double duty = std::min(1.0, chunks * edges[e].chunk_seconds / period);
      hop += std::max(edges[e].solo_chunk_seconds, edges[e].chunk_seconds * duty) + ps_to_seconds(latency[e]);
    }
    period = std::max(slowest_send, hop / static_cast<double>(edges.size()));
  }
  TimePs finish = 0;
  for (std::size_t e = 0; e < edges.size(); ++e) {
    const double stall = std::max(0.0, period - chunks * edges[e].chunk_seconds);
    finish = std::max(finish, later_by(later_by(edges[e].drained, latency[e]), seconds_to_ps((steps - 1) * stall)));
  }
  return finish;
}

}  // namespace

FastRingRunner::FastRingRunner(Engine& engine, FlowNetwork& network, const Router& router)
    : engine_(engine), network_(network), router_(router) {}

void FastRingRunner::run(const CollectiveTuning& tuning, const RingPlan& plan, std::uint64_t flow_key,
                         std::span<const Path* const> fixed_paths, std::function<void()> on_done) {
  if (plan.chain) throw std::invalid_argument("ring fast path: only rings where every rank sends every step");
  const std::size_t n = plan.order.size();
  const std::uint32_t index = rings_.acquire();
  Ring& ring = rings_[index];
  ring.pending = n;
  ring.started = engine_.now();
  ring.steps = plan.steps;
  ring.chunks = plan.chunks;
  ring.on_done = std::move(on_done);
  ring.edge_latency.clear();
  ring.edges.assign(n, {});
  const double sends = static_cast<double>(plan.steps) * plan.chunks;
  paths_.clear();
  for (std::size_t p = 0; p < n; ++p) {
    const Path* fixed = p < fixed_paths.size() ? fixed_paths[p] : nullptr;
    const Path& path = fixed ? *fixed : router_.route(plan.order[p], plan.order[(p + 1) % n], flow_key + p);
    const TimePs sync = plan.sync_latency.empty() ? tuning.step_latency : plan.sync_latency[p];
    ring.edge_latency.push_back(path.latency + sync);
    paths_.push_back(&path);
  }

  edge_bytes_.clear();
  edge_caps_.clear();
  for (std::size_t p = 0; p < n; ++p) {
    const double wire = plan.wire_factor.empty() ? 1.0 / tuning.protocol_efficiency : plan.wire_factor[p];
    const double cap = plan.max_bytes_per_s.empty() ? std::numeric_limits<double>::infinity() : plan.max_bytes_per_s[p];
    double slowest_link = cap;
    const Path& path = *paths_[p];
    for (std::size_t i = 0; i < path.links.size(); ++i) {
      slowest_link = std::min(slowest_link, network_.capacity(path.links[i]) / path.share(i));
    }
    ring.edges[p].solo_chunk_seconds = plan.chunk_bytes * wire / slowest_link;
    edge_bytes_.push_back(plan.chunk_bytes * wire * sends);
    edge_caps_.push_back(cap);
  }
  // The ring's state is complete before any flow starts; the caller batches
  // the starts of all its rings. A ring alone on its links (a tensor-parallel
  // group's NVLink ports) is held: the same drains without a flow per edge.
  if (network_.start_held(paths_, edge_bytes_, edge_caps_, *this, index)) return;
  for (std::size_t p = 0; p < n; ++p) {
    const auto edge = static_cast<std::uint32_t>(p);
    network_.start(
        *paths_[p], edge_bytes_[p], {}, [this, index, edge] { edge_drained(index, edge, engine_.now()); },
        edge_caps_[p]);
  }
}

void FastRingRunner::edge_drained(std::uint32_t index, std::uint32_t edge, TimePs at) {
  Ring& ring = rings_[index];
  const double sends = static_cast<double>(ring.steps) * ring.chunks;
  ring.edges[edge].drained = at;
  ring.edges[edge].chunk_seconds = ps_to_seconds(at - ring.started) / sends;
  if (--ring.pending > 0) return;
  engine_.schedule_at(ring_finish(ring.edges, ring.edge_latency, ring.steps, ring.chunks), std::move(ring.on_done));
  ring.on_done = nullptr;
  rings_.release(index);
}

}  // namespace simctl
