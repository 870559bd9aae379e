#include "models/network/pipelined_run.hpp"

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <vector>

namespace simctl {

namespace {

void check_lanes(const TransferPlan& plan) {
  std::vector<bool> taken(static_cast<std::size_t>(plan.lanes), false);
  for (std::size_t i = 0; i < plan.transfers.size(); ++i) {
    const Transfer& t = plan.transfers[i];
    if (t.lane < 0 || t.lane >= plan.lanes || taken[static_cast<std::size_t>(t.lane)]) {
      throw std::invalid_argument("pipelined transfer plan: every transfer needs a lane of its own");
    }
    taken[static_cast<std::size_t>(t.lane)] = true;
    for (std::uint32_t d : t.after) {
      if (d >= i) throw std::invalid_argument("pipelined transfer plan: a transfer depends on a later one");
    }
  }
}

// One chunk's trip through the pattern alone, on an empty copy of the
// network: its transfers contend with each other (both trees' sends share a
// NIC) but not with later chunks or other traffic.
TimePs one_chunk_alone(const TransferContext& context, const TransferPlan& one_chunk) {
  Engine engine;
  std::vector<Bandwidth> capacity(context.network.link_count());
  for (LinkId l = 0; l < capacity.size(); ++l) capacity[l] = Bandwidth{context.network.capacity(l)};
  FlowNetwork network(engine, std::move(capacity));
  TimePs arrived = 0;
  run_transfers({engine, network, context.router}, one_chunk, [&] { arrived = engine.now(); });
  engine.run();
  return arrived;
}

// Lives as long as some flow callback refers to it.
class PipelinedRun : public std::enable_shared_from_this<PipelinedRun> {
 public:
  PipelinedRun(const TransferContext& context, TransferPlan plan, int chunks, std::function<void()> on_done)
      : context_(context), plan_(std::move(plan)), chunks_(chunks), on_done_(std::move(on_done)) {}

  void begin() {
    const std::size_t n = plan_.transfers.size();
    if (n == 0) {
      context_.engine.schedule_after(0, std::move(on_done_));
      return;
    }
    started_ = context_.engine.now();
    fill_ = one_chunk_alone(context_, plan_);
    pending_ = n;
    drained_.assign(n, 0);
    auto self = shared_from_this();
    context_.network.begin_batch();
    for (std::uint32_t i = 0; i < n; ++i) {
      const Transfer& t = plan_.transfers[i];
      const Path& path = context_.router.route(t.from, t.to, plan_.flow_key + i);
      context_.network.start(
          path, t.wire_bytes * chunks_, {}, [self, i] { self->drained(i); }, t.max_bytes_per_s);
    }
    context_.network.end_batch();
  }

 private:
  void drained(std::uint32_t i) {
    drained_[i] = context_.engine.now();
    if (--pending_ == 0) finish();
  }

  // The first chunk's trip, then the slowest lane's other chunks at its
  // pace among the steady flows.
  void finish() {
    const double chunks = static_cast<double>(chunks_);
    const TimePs slowest = *std::max_element(drained_.begin(), drained_.end());
    const double slowest_chunk_ps = static_cast<double>(slowest - started_) / chunks;
    const TimePs end = started_ + fill_ + static_cast<TimePs>((chunks - 1.0) * slowest_chunk_ps);
    context_.engine.schedule_at(std::max(end, context_.engine.now()), std::move(on_done_));
  }

  TransferContext context_;
  TransferPlan plan_;
  int chunks_;
  std::function<void()> on_done_;
  TimePs started_ = 0;
  std::size_t pending_ = 0;
  std::vector<TimePs> drained_;  // per transfer, when its flow left the links
  TimePs fill_ = 0;              // one chunk's trip alone
};

}  // namespace

void run_pipelined(const TransferContext& context, TransferPlan one_chunk, int chunks, std::function<void()> on_done) {
  if (chunks < 1) throw std::invalid_argument("pipelined transfer plan: needs at least one chunk");
  check_lanes(one_chunk);
  std::make_shared<PipelinedRun>(context, std::move(one_chunk), chunks, std::move(on_done))->begin();
}

}  // namespace simctl
