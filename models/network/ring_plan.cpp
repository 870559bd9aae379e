#include "models/network/ring_plan.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

namespace simctl {

namespace {

bool is_chain(CollectiveOp op) { return op == CollectiveOp::broadcast || op == CollectiveOp::reduce; }

// Bytes one rank moves per step before chunking.
double step_bytes(const CollectiveRequest& r) {
  const double n = static_cast<double>(r.members.size());
  return is_chain(r.op) ? r.bytes : r.bytes / n;
}

int step_count(CollectiveOp op, int n) {
  switch (op) {
    case CollectiveOp::all_reduce: return 2 * (n - 1);
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter:
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return n - 1;
    case CollectiveOp::all_to_all: break;
  }
  throw std::invalid_argument("ring collective: " + std::string(to_string(op)) + " has no ring form");
}

// Reduce runs the chain toward the root, so the root goes last.
std::vector<EndpointId> ring_order(const CollectiveRequest& r) {
  std::vector<EndpointId> order = r.members;
  if (r.op == CollectiveOp::reduce) std::rotate(order.begin(), order.begin() + 1, order.end());
  return order;
}

// Step-major order: all chunks of step s before step s+1, so a rank keeps its
// outgoing link busy while the chunks it depends on arrive.
std::vector<RingSend> sends_of(int position, const RingPlan& plan, bool chain) {
  std::vector<RingSend> out;
  const int n = static_cast<int>(plan.order.size());
  for (int s = 0; s < plan.steps; ++s) {
    // In a chain, position p forwards at step p only; the last one only receives.
    if (chain && (s != position || position == n - 1)) continue;
    for (int c = 0; c < plan.chunks; ++c) out.push_back({s, c});
  }
  return out;
}

}  // namespace

std::size_t RingPlan::total_sends() const {
  std::size_t total = 0;
  for (const auto& list : sends) total += list.size();
  return total;
}

void fill_ring_sends(RingPlan& plan) {
  const int n = static_cast<int>(plan.order.size());
  plan.sends.resize(static_cast<std::size_t>(n));
  for (int p = 0; p < n; ++p) plan.sends[p] = sends_of(p, plan, plan.chain);
}

std::size_t ring_send_count(const RingPlan& plan) {
  const std::size_t n = plan.order.size();
  const std::size_t per_step = static_cast<std::size_t>(plan.chunks);
  return plan.chain ? (n - 1) * per_step : n * static_cast<std::size_t>(plan.steps) * per_step;
}

RingPlan plan_ring(const CollectiveRequest& request, const CollectiveTuning& tuning, bool with_sends) {
  const int n = static_cast<int>(request.members.size());
  if (n < 2) throw std::invalid_argument("ring collective needs at least 2 members");
  RingPlan plan;
  plan.order = ring_order(request);
  plan.steps = step_count(request.op, n);
  const double per_step = step_bytes(request);
  const double wanted = std::ceil(per_step / tuning.chunk_bytes);
  plan.chunks = static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(tuning.max_chunks_per_step)));
  plan.chunk_bytes = per_step / plan.chunks;
  plan.chain = is_chain(request.op);
  if (with_sends) fill_ring_sends(plan);
  return plan;
}

}  // namespace simctl
