#pragma once
// Flow-level network model. A transfer is a flow of bytes along a routed path
// of directed links; concurrent flows share each link max-min fairly. Rates
// change only when a flow starts or drains, and then only for the flows that
// share links with it (transitively), so the cost of an event scales with the
// contention around it rather than with the whole network.
#include <cstdint>
#include <functional>
#include <limits>
#include <span>
#include <vector>

#include "models/network/flow_slot_map.hpp"
#include "models/network/max_min_fair.hpp"
#include "models/network/path.hpp"
#include "sim/core/engine.hpp"
#include "sim/core/slot_pool.hpp"
#include "sim/core/units.hpp"

namespace simctl {

using FlowId = std::uint64_t;

// Told when each flow of a held set (FlowNetwork::start_held) has drained.
class HoldOwner {
 public:
  // Flow `flow` of the set started as `tag` drained at `at` (at or before now).
  virtual void held_flow_drained(std::uint32_t tag, std::uint32_t flow, TimePs at) = 0;

 protected:
  ~HoldOwner() = default;
};

class FlowNetwork {
 public:
  using Callback = std::function<void()>;

  // One entry per directed link, already multiplied by the link's efficiency;
  // `count_only_links` are marked as count_only() marks them.
  FlowNetwork(Engine& engine, std::vector<Bandwidth> effective_capacity_per_link,
              const std::vector<LinkId>& count_only_links = {});
  FlowNetwork(const FlowNetwork&) = delete;
  FlowNetwork& operator=(const FlowNetwork&) = delete;

  // Starts moving `bytes` along `path` now (a spread path's links carry
  // their shares of the flow's rate, Path::shares). `on_drained` (optional) runs when
  // the last byte has left the sender, i.e. the links are free of this flow;
  // `on_done` runs path.latency later, when the last byte has arrived.
  // Zero-byte flows and flows on an empty path drain at once. A finite
  // `max_bytes_per_s` caps the flow's own rate whatever its links leave it
  // (a sender that cannot push faster: NCCL's CTAs), so the links carry only
  // what it moves.
  FlowId start(const Path& path, double bytes, Callback on_done, Callback on_drained = {},
               double max_bytes_per_s = std::numeric_limits<double>::infinity());

  // Starts one flow per path (bytes[i] along paths[i], its own rate capped
  // at max_bytes_per_s[i]) exactly as start() would when each is alone: every
  // link they cross carries nothing else, no two of them share a link, and
  // none is spread or crosses a count-only link. Their rates cannot change
  // then, so they are held as a set, outside the sharing machinery, with one
  // engine event when the last drains, which tells `owner` of every flow's
  // drain in order. A later flow onto one of their links turns the set's
  // undrained flows into ordinary flows first, as they would have been.
  // Returns false and starts nothing where they would not run alone (or a
  // batch has flows pending). The node-local ring of a tensor-parallel
  // collective is the case: millions of them in a large replay.
  bool start_held(std::span<const Path* const> paths, std::span<const double> bytes,
                  std::span<const double> max_bytes_per_s, HoldOwner& owner, std::uint32_t tag);

  // Marks a link that can never limit a flow (its capacity is at least what
  // the links feeding it can carry: an adaptive fabric's non-blocking pool):
  // flows crossing it count toward its bytes and busy time, but it takes no
  // part in sharing rates, so it does not join every flow through it into
  // one component to re-share. Call before any flow starts.
  void count_only(LinkId link);

  // Between begin_batch() and end_batch(), start() only registers flows; the
  // rates of all of them are computed once at end_batch(). Starting the n
  // flows of a collective one by one would recompute their shared component
  // n times (quadratic in the collective's size).
  void begin_batch();
  void end_batch();

  std::size_t link_count() const { return capacity_.size(); }
  // A link's effective capacity in bytes/s.
  double capacity(LinkId link) const { return capacity_[link]; }
  std::size_t active_flows() const { return slot_of_.size(); }
  // Current rate of an active flow in bytes/s; 0 once it has drained.
  double rate_of(FlowId id) const;

  // Per-link statistics as of now.
  double bytes_carried(LinkId link) const;
  TimePs busy_time(LinkId link) const;  // time with at least one flow on the link
  // Bytes carried over what the link could have carried in `window` (default: since time 0).
  double utilisation(LinkId link, TimePs window) const;
  double utilisation(LinkId link) const { return utilisation(link, engine_.now()); }

  std::uint64_t flows_started() const { return flows_started_; }
  std::uint64_t rate_recomputations() const { return recomputations_; }
  // Wall-clock time spent inside rate recomputation, once time_recomputes()
  // is on (for benchmarks; never feeds back into simulated time, so runs stay
  // deterministic). Off by default: reading the clock twice per recompute
  // cost a training step's replay 2%.
  void time_recomputes() { time_recomputes_ = true; }
  double recompute_wall_seconds() const { return recompute_wall_s_; }

 private:
  // Where an active flow lives. Slots are reused, ids never are; every list
  // is kept in id order, so slot numbers never affect a result.
  struct FlowRef {
    FlowId id;
    std::uint32_t slot;
  };
  struct Flow {
    FlowId id = 0;
    std::vector<LinkId> links;    // keeps its capacity when the slot is reused
    std::vector<LinkId> counted;  // count-only links it crosses
    // The share of its rate on each of links / counted (Path::shares);
    // empty when every share is 1, as for all but spread connections.
    std::vector<double> shares;
    std::vector<double> counted_shares;
    double share(std::size_t i) const { return shares.empty() ? 1.0 : shares[i]; }
    double counted_share(std::size_t i) const { return counted_shares.empty() ? 1.0 : counted_shares[i]; }
    TimePs latency = 0;
    double remaining_bytes = 0.0;
    double rate = 0.0;                                          // bytes per second
    double max_rate = std::numeric_limits<double>::infinity();  // its own cap, bytes per second
    TimePs updated_at = 0;
    std::uint32_t group = kNoGroup;  // its completion group while it has a drain time
    Callback on_done;
    Callback on_drained;
    std::uint32_t visit_mark = 0;  // == mark_epoch_: already in component_
  };
  static constexpr std::uint32_t kNoGroup = UINT32_MAX;
  static constexpr std::uint32_t kNoHold = UINT32_MAX;
  // A set of flows started by start_held(), each alone on its links at a
  // fixed rate; pooled, so its lists keep their capacity.
  struct HeldFlow {
    FlowId id = 0;
    std::uint32_t first_link = 0;  // into Hold::links
    std::uint32_t link_count = 0;
    TimePs latency = 0;
    double bytes = 0.0;
    double rate = 0.0;  // bytes per second
    double max_rate = 0.0;
    TimePs drains_at = 0;
  };
  // One engine event per distinct drain time, as ordinary flows' completion
  // groups would have: the last reports every drain; once the set has turned
  // ordinary, each fires the group of its converted flows.
  struct HoldEvent {
    TimePs at = 0;
    EventId id;
    std::uint32_t group = kNoGroup;  // the converted flows draining then
    bool fired = false;
  };
  struct Hold {
    std::vector<HeldFlow> flows;    // in id order
    std::vector<LinkId> links;      // every flow's links, back to back
    std::vector<HoldEvent> events;  // in time order
    std::uint32_t live_events = 0;  // neither fired nor cancelled
    TimePs started = 0;
    std::uint64_t batch = 0;  // the batch it started in (batch_serial_), 0 outside one
    bool ordinary = false;    // its undrained flows are ordinary flows now
    HoldOwner* owner = nullptr;
    std::uint32_t tag = 0;
  };
  // Flows that drain at the same instant (the edges of a collective's ring,
  // say) share one engine event; a flow whose rate changes leaves its group.
  struct CompletionGroup {
    EventId event;  // invalid once firing
    std::uint32_t live = 0;
    std::vector<std::uint32_t> members;  // flow slots, in flow id order
    std::uint32_t hold = kNoHold;        // the held set whose event it fires on
  };
  struct LinkState {
    std::vector<FlowRef> flows;  // active flows crossing the link, in id order
    double rate_sum = 0.0;       // bytes/s currently carried
    double carried_bytes = 0.0;
    TimePs busy_ps = 0;
    TimePs settled_at = 0;            // carried_bytes/busy_ps are exact up to here
    bool count_only = false;          // takes no part in sharing (count_only())
    std::uint32_t counted_flows = 0;  // active flows crossing a count-only link
    std::uint32_t visit_mark = 0;     // == mark_epoch_: already in touched_
    // The held set whose flow crosses the link alone until held_until
    // (start_held); its bytes and busy time are settled lazily, at that time.
    std::uint32_t hold = kNoHold;
    TimePs held_until = 0;
  };

  Flow& reset_flow(std::uint32_t slot, FlowId id, TimePs latency, double bytes, double max_rate, TimePs updated_at);
  double alone_rate(std::span<const LinkId> links, std::span<const double> shares, double max_rate) const;
  bool take_shares(const Path& path, Flow& flow) const;
  void release_slot(std::uint32_t slot);
  void next_mark_epoch();
  void touch(LinkId link);
  void collect_component(std::span<const LinkId> seeds);
  void advance(Flow& flow);
  void settle_link(LinkId link);
  bool link_busy(const LinkState& state) const {
    return !state.flows.empty() || state.counted_flows > 0 || state.hold != kNoHold;
  }
  bool can_hold(std::span<const Path* const> paths);
  void expire_hold(LinkId link);
  void release_held_links(const Hold& hold, std::uint32_t h, const HeldFlow& flow);
  void report_held_drains(std::uint32_t h);
  void hold_event(std::uint32_t h, std::uint32_t k);
  void drop_hold_event(std::uint32_t h);
  std::uint32_t ordinary_flow(const Hold& hold, std::uint32_t i);
  void unhold(std::uint32_t h);
  void unhold_into_batch(std::uint32_t h);
  void free_held_links(const Path& path);
  void count_rate_change(const Flow& flow, double old_rate);
  void recompute(std::span<const LinkId> seeds, std::span<const FlowRef> joining);
  bool each_alone() const;
  const std::vector<double>& alone_rates();
  const std::vector<double>& shared_rates();
  void apply_rates(const std::vector<double>& rates_bytes_per_s);
  void flush_drained();
  void reschedule(std::uint32_t slot);
  void leave_group(std::uint32_t slot);
  void schedule_due();
  void fire(std::uint32_t group);
  void drain(std::uint32_t slot);
  void finish(Callback on_drained, Callback on_done, TimePs latency);

  Engine& engine_;
  std::vector<double> capacity_;  // bytes/s per directed link
  std::vector<LinkState> links_;
  SlotPool<Flow> slots_;  // active flows and free slots
  FlowSlotMap slot_of_;   // active flows only
  FlowId next_id_ = 0;
  std::uint64_t flows_started_ = 0;
  std::uint64_t recomputations_ = 0;
  double recompute_wall_s_ = 0.0;
  bool time_recomputes_ = false;
  bool batching_ = false;
  std::uint64_t batch_serial_ = 0;     // counts begin_batch() calls
  std::vector<FlowRef> batch_;         // started while batching, rates not yet set
  std::vector<LinkId> drained_seeds_;  // links freed by drains not yet re-shared
  bool flush_scheduled_ = false;

  // Scratch reused by every recompute, which runs on each flow start and
  // drain: no allocation once the buffers have grown.
  std::uint32_t mark_epoch_ = 0;
  std::vector<LinkId> frontier_;
  std::vector<LinkId> touched_;      // seeds and the links of component_
  std::vector<FlowRef> component_;   // the flows being re-shared, in id order
  std::vector<FlowRef> joining_;     // end_batch's newcomers
  std::vector<LinkId> batch_seeds_;  // end_batch's seeds
  MaxMinFairSolver solver_;
  std::vector<double> alone_rates_;
  std::vector<std::pair<TimePs, std::uint32_t>> due_;  // (drain time, slot) set by this recompute
  SlotPool<CompletionGroup> groups_;
  SlotPool<Hold> holds_;
};

}  // namespace simctl
