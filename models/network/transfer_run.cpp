#include <deque>
#include <memory>
#include <stdexcept>

#include "models/network/transfer_plan.hpp"

namespace simctl {

namespace {

// Lives as long as some flow callback refers to it.
class TransferRun : public std::enable_shared_from_this<TransferRun> {
 public:
  TransferRun(const TransferContext& context, TransferPlan plan, std::function<void()> on_done)
      : context_(context), plan_(std::move(plan)), on_done_(std::move(on_done)) {
    const std::size_t n = plan_.transfers.size();
    unmet_.resize(n);
    dependents_.resize(n);
    lanes_.resize(static_cast<std::size_t>(plan_.lanes));
    for (std::uint32_t i = 0; i < n; ++i) {
      const Transfer& t = plan_.transfers[i];
      unmet_[i] = static_cast<std::uint32_t>(t.after.size());
      for (std::uint32_t d : t.after) {
        if (d >= i) throw std::invalid_argument("transfer plan: a transfer depends on a later one");
        dependents_[d].push_back(i);
      }
      if (t.lane >= plan_.lanes) throw std::invalid_argument("transfer plan: unknown lane");
      if (t.lane >= 0) lanes_[static_cast<std::size_t>(t.lane)].queue.push_back(i);
    }
    pending_ = n;
  }

  void begin() {
    if (pending_ == 0) {
      context_.engine.schedule_after(0, std::move(on_done_));
      return;
    }
    context_.network.begin_batch();
    for (std::uint32_t i = 0; i < plan_.transfers.size(); ++i) {
      if (unmet_[i] == 0) became_ready(i);
    }
    context_.network.end_batch();
  }

 private:
  struct Lane {
    std::deque<std::uint32_t> queue;  // in plan order
    bool busy = false;
  };

  void became_ready(std::uint32_t i) {
    const int lane = plan_.transfers[i].lane;
    if (lane < 0) return launch(i);
    try_lane(static_cast<std::size_t>(lane));
  }

  void try_lane(std::size_t lane) {
    Lane& l = lanes_[lane];
    if (l.busy || l.queue.empty() || unmet_[l.queue.front()] != 0) return;
    const std::uint32_t i = l.queue.front();
    l.queue.pop_front();
    l.busy = true;
    launch(i);
  }

  void launch(std::uint32_t i) {
    const Transfer& t = plan_.transfers[i];
    const Path& path = context_.router.route(t.from, t.to, plan_.flow_key + i);
    auto self = shared_from_this();
    context_.network.start(
        path, t.wire_bytes, [self, i] { self->landed(i); },
        [self, i] {
          const int lane = self->plan_.transfers[i].lane;
          if (lane < 0) return;
          self->lanes_[static_cast<std::size_t>(lane)].busy = false;
          self->try_lane(static_cast<std::size_t>(lane));
        },
        t.max_bytes_per_s);
  }

  void landed(std::uint32_t i) {
    const TimePs sync = plan_.transfers[i].sync_latency;
    if (sync == 0) return arrive(i);
    auto self = shared_from_this();
    context_.engine.schedule_after(sync, [self, i] { self->arrive(i); });
  }

  void arrive(std::uint32_t i) {
    if (--pending_ == 0) {
      on_done_();
      return;
    }
    for (std::uint32_t d : dependents_[i]) {
      if (--unmet_[d] == 0) became_ready(d);
    }
  }

  TransferContext context_;
  TransferPlan plan_;
  std::function<void()> on_done_;
  std::vector<std::uint32_t> unmet_;
  std::vector<std::vector<std::uint32_t>> dependents_;
  std::vector<Lane> lanes_;
  std::size_t pending_ = 0;
};

}  // namespace

void run_transfers(const TransferContext& context, TransferPlan plan, std::function<void()> on_done) {
  std::make_shared<TransferRun>(context, std::move(plan), std::move(on_done))->begin();
}

}  // namespace simctl
