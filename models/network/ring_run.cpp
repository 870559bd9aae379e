#include "models/network/ring_run.hpp"

#include <limits>
#include <vector>

namespace simctl {

namespace {

// Lives as long as some flow callback refers to it.
class RingRun : public std::enable_shared_from_this<RingRun> {
 public:
  RingRun(const RingContext& context, RingPlan plan, std::function<void()> on_done)
      : engine_(context.engine),
        network_(context.network),
        router_(context.router),
        step_latency_(context.tuning.step_latency),
        default_wire_bytes_(plan.chunk_bytes / context.tuning.protocol_efficiency),
        plan_(std::move(plan)),
        on_done_(std::move(on_done)),
        ranks_(plan_.order.size()),
        pending_arrivals_(plan_.total_sends()) {
    for (auto& rank : ranks_) rank.arrived.assign(static_cast<std::size_t>(plan_.steps) * plan_.chunks, 0);
  }

  void begin() {
    if (pending_arrivals_ == 0) {
      engine_.schedule_after(0, std::move(on_done_));
      return;
    }
    network_.begin_batch();
    for (std::size_t p = 0; p < ranks_.size(); ++p) try_issue(p);
    network_.end_batch();
  }

 private:
  struct Rank {
    std::size_t next = 0;       // index of the next send in plan order
    bool link_busy = false;     // a send of ours is still draining
    std::vector<char> arrived;  // by step * chunks + chunk
  };

  std::size_t successor(std::size_t p) const { return (p + 1) % ranks_.size(); }
  std::size_t slot(int step, int chunk) const { return static_cast<std::size_t>(step) * plan_.chunks + chunk; }

  bool ready(std::size_t p, const RingSend& send) const {
    return send.step == 0 || ranks_[p].arrived[slot(send.step - 1, send.chunk)] != 0;
  }

  void try_issue(std::size_t p) {
    Rank& rank = ranks_[p];
    const auto& sends = plan_.sends[p];
    if (rank.link_busy || rank.next == sends.size() || !ready(p, sends[rank.next])) return;
    const RingSend send = sends[rank.next++];
    rank.link_busy = true;
    const double wire_bytes =
        plan_.wire_factor.empty() ? default_wire_bytes_ : plan_.chunk_bytes * plan_.wire_factor[p];
    const std::size_t to = successor(p);
    const Path& path = router_.route(plan_.order[p], plan_.order[to], plan_.flow_key + p);
    auto self = shared_from_this();
    network_.start(
        path, wire_bytes, [self, p, to, send] { self->landed(p, to, send); },
        [self, p] {
          self->ranks_[p].link_busy = false;
          self->try_issue(p);
        },
        plan_.max_bytes_per_s.empty() ? std::numeric_limits<double>::infinity() : plan_.max_bytes_per_s[p]);
  }

  // The bytes are at the receiver; the protocol's per-step sync still has to happen.
  void landed(std::size_t from, std::size_t p, RingSend send) {
    const TimePs sync = plan_.sync_latency.empty() ? step_latency_ : plan_.sync_latency[from];
    if (sync == 0) return arrive(p, send);
    auto self = shared_from_this();
    engine_.schedule_after(sync, [self, p, send] { self->arrive(p, send); });
  }

  void arrive(std::size_t p, RingSend send) {
    ranks_[p].arrived[slot(send.step, send.chunk)] = 1;
    if (--pending_arrivals_ == 0) {
      on_done_();
      return;
    }
    try_issue(p);
  }

  Engine& engine_;
  FlowNetwork& network_;
  const Router& router_;
  TimePs step_latency_;
  double default_wire_bytes_;
  RingPlan plan_;
  std::function<void()> on_done_;
  std::vector<Rank> ranks_;
  std::size_t pending_arrivals_;
};

}  // namespace

void run_ring(const RingContext& context, RingPlan plan, std::function<void()> on_done) {
  std::make_shared<RingRun>(context, std::move(plan), std::move(on_done))->begin();
}

}  // namespace simctl
