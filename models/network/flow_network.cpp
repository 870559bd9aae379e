#include "models/network/flow_network.hpp"

#include <algorithm>
#include <chrono>
#include <limits>
#include <stdexcept>
#include <utility>

namespace simctl {

FlowNetwork::FlowNetwork(Engine& engine, std::vector<Bandwidth> effective_capacity_per_link,
                         const std::vector<LinkId>& count_only_links)
    : engine_(engine), links_(effective_capacity_per_link.size()) {
  capacity_.reserve(effective_capacity_per_link.size());
  for (Bandwidth b : effective_capacity_per_link) {
    if (!(b.bytes_per_s > 0.0)) throw std::invalid_argument("FlowNetwork: link capacity must be positive");
    capacity_.push_back(b.bytes_per_s);
  }
  for (LinkId link : count_only_links) count_only(link);
}

FlowId FlowNetwork::start(const Path& path, double bytes, Callback on_done, Callback on_drained,
                          double max_bytes_per_s) {
  const FlowId id = next_id_++;
  ++flows_started_;
  if (!(bytes > 0.0) || path.links.empty()) {
    // Nothing occupies a link; schedule rather than call so callers never re-enter.
    engine_.schedule_after(0, [this, d = std::move(on_drained), o = std::move(on_done), l = path.latency]() mutable {
      finish(std::move(d), std::move(o), l);
    });
    return id;
  }
  free_held_links(path);  // before taking a slot: freeing one may take slots
  const std::uint32_t slot = slots_.acquire();
  Flow& flow = reset_flow(slot, id, path.latency, bytes, max_bytes_per_s, engine_.now());
  for (LinkId link : path.links) {
    if (link >= links_.size()) {
      slots_.release(slot);
      throw std::out_of_range("FlowNetwork::start: path uses an unknown link");
    }
    (links_[link].count_only ? flow.counted : flow.links).push_back(link);
  }
  if (!path.shares.empty() && !take_shares(path, flow)) {
    slots_.release(slot);
    throw std::invalid_argument("FlowNetwork::start: a spread path needs one share in (0, 1] per link");
  }
  if (flow.links.empty()) {
    // Nothing would bound its rate: count-only links stand beside links that share.
    slots_.release(slot);
    throw std::logic_error("FlowNetwork::start: a path of count-only links only");
  }
  for (LinkId link : flow.counted) {
    settle_link(link);
    ++links_[link].counted_flows;
  }
  flow.on_done = std::move(on_done);
  flow.on_drained = std::move(on_drained);
  slot_of_.insert(id, slot);
  const FlowRef ref{id, slot};
  if (batching_) {
    batch_.push_back(ref);
  } else {
    recompute(flow.links, {&ref, 1});
  }
  return id;
}

// A pooled slot made a new flow with no links, no rate and no callbacks yet.
FlowNetwork::Flow& FlowNetwork::reset_flow(std::uint32_t slot, FlowId id, TimePs latency, double bytes, double max_rate,
                                           TimePs updated_at) {
  Flow& flow = slots_[slot];
  flow.id = id;
  flow.links.clear();
  flow.counted.clear();
  flow.shares.clear();
  flow.counted_shares.clear();
  flow.latency = latency;
  flow.remaining_bytes = bytes;
  flow.rate = 0.0;
  flow.max_rate = max_rate;
  flow.updated_at = updated_at;
  flow.group = kNoGroup;
  return flow;
}

// The rate a flow gets with no other flow on its links: its slowest link's
// capacity over its share there, or its own cap.
double FlowNetwork::alone_rate(std::span<const LinkId> links, std::span<const double> shares, double max_rate) const {
  double rate = max_rate;
  for (std::size_t i = 0; i < links.size(); ++i) {
    rate = std::min(rate, shares.empty() ? capacity_[links[i]] : capacity_[links[i]] / shares[i]);
  }
  return rate;
}

// Splits a spread path's shares as start() split its links (all-ones
// shares are the plain flow); false when they do not fit the path.
bool FlowNetwork::take_shares(const Path& path, Flow& flow) const {
  if (path.shares.size() != path.links.size()) return false;
  for (std::size_t i = 0; i < path.links.size(); ++i) {
    const double share = path.shares[i];
    if (!(share > 0.0 && share <= 1.0)) return false;
    (links_[path.links[i]].count_only ? flow.counted_shares : flow.shares).push_back(share);
  }
  auto all_ones = [](const std::vector<double>& s) {
    return std::all_of(s.begin(), s.end(), [](double x) { return x == 1.0; });
  };
  if (all_ones(flow.shares)) flow.shares.clear();
  if (all_ones(flow.counted_shares)) flow.counted_shares.clear();
  return true;
}

void FlowNetwork::release_slot(std::uint32_t slot) {
  Flow& flow = slots_[slot];
  slot_of_.erase(flow.id);
  flow.group = kNoGroup;
  flow.on_done = nullptr;
  flow.on_drained = nullptr;
  slots_.release(slot);
}

void FlowNetwork::begin_batch() {
  batching_ = true;
  ++batch_serial_;
}

void FlowNetwork::count_only(LinkId link) {
  if (active_flows() > 0) throw std::logic_error("FlowNetwork::count_only: flows are already running");
  links_.at(link).count_only = true;
}

// A count-only link's carried rate follows its flows' rates.
void FlowNetwork::count_rate_change(const Flow& flow, double old_rate) {
  for (std::size_t i = 0; i < flow.counted.size(); ++i) {
    settle_link(flow.counted[i]);
    LinkState& state = links_[flow.counted[i]];
    state.rate_sum = std::max(0.0, state.rate_sum + (flow.rate - old_rate) * flow.counted_share(i));
  }
}

void FlowNetwork::end_batch() {
  batching_ = false;
  if (batch_.empty()) return;
  joining_.swap(batch_);
  batch_.clear();
  // Seeds form a set: the component search dedupes them, so no sort is needed.
  batch_seeds_.clear();
  for (const FlowRef& ref : joining_) {
    const auto& links = slots_[ref.slot].links;
    batch_seeds_.insert(batch_seeds_.end(), links.begin(), links.end());
  }
  recompute(batch_seeds_, joining_);
  joining_.clear();
}

double FlowNetwork::rate_of(FlowId id) const {
  const std::uint32_t slot = slot_of_.find(id);
  return slot == FlowSlotMap::kNone ? 0.0 : slots_[slot].rate;
}

void FlowNetwork::next_mark_epoch() {
  // Marks from 2^32 searches ago would alias the new epoch: forget them all.
  if (++mark_epoch_ != 0) return;
  for (LinkState& link : links_) link.visit_mark = 0;
  for (Flow& flow : slots_) flow.visit_mark = 0;
  mark_epoch_ = 1;
}

void FlowNetwork::touch(LinkId link) {
  LinkState& state = links_[link];
  if (state.visit_mark == mark_epoch_) return;
  state.visit_mark = mark_epoch_;
  touched_.push_back(link);
}

// Fills component_ with all active flows connected to `seeds` through shared
// links, in id order, and touched_ with the seeds and every link they cross.
void FlowNetwork::collect_component(std::span<const LinkId> seeds) {
  next_mark_epoch();
  component_.clear();
  touched_.clear();
  frontier_.assign(seeds.begin(), seeds.end());
  while (!frontier_.empty()) {
    const LinkId link = frontier_.back();
    frontier_.pop_back();
    if (links_[link].visit_mark == mark_epoch_) continue;
    // A held link carries no listed flow, and its rate is the held flow's
    // alone (a drained flow's links seed a re-share after it was held).
    if (links_[link].hold != kNoHold) continue;
    touch(link);
    for (const FlowRef& ref : links_[link].flows) {
      Flow& flow = slots_[ref.slot];
      if (flow.visit_mark == mark_epoch_) continue;
      flow.visit_mark = mark_epoch_;
      component_.push_back(ref);
      for (LinkId next : flow.links) {
        if (links_[next].visit_mark != mark_epoch_) frontier_.push_back(next);
      }
    }
  }
  std::sort(component_.begin(), component_.end(), [](const FlowRef& a, const FlowRef& b) { return a.id < b.id; });
}

void FlowNetwork::advance(Flow& flow) {
  const TimePs now = engine_.now();
  flow.remaining_bytes = std::max(0.0, flow.remaining_bytes - flow.rate * ps_to_seconds(now - flow.updated_at));
  flow.updated_at = now;
}

void FlowNetwork::settle_link(LinkId link) {
  expire_hold(link);
  LinkState& state = links_[link];
  const TimePs now = engine_.now();
  const TimePs elapsed = now - state.settled_at;
  state.carried_bytes += state.rate_sum * ps_to_seconds(elapsed);
  if (link_busy(state)) state.busy_ps += elapsed;
  state.settled_at = now;
}

void FlowNetwork::recompute(std::span<const LinkId> seeds, std::span<const FlowRef> joining) {
  ++recomputations_;
  const auto wall_start = time_recomputes_ ? std::chrono::steady_clock::now() : std::chrono::steady_clock::time_point{};
  // Everything connected to the seeds is brought up to now at the old rates
  // before any rate changes. Each link and flow settles on its own, so the
  // order of touched_ does not matter.
  collect_component(seeds);
  for (LinkId link : touched_) settle_link(link);
  for (const FlowRef& ref : component_) advance(slots_[ref.slot]);
  for (const FlowRef& ref : joining) {
    // Ids grow monotonically, so newcomers go last in every id-ordered list.
    for (LinkId link : slots_[ref.slot].links) {
      links_[link].flows.push_back(ref);
      touch(link);
    }
    component_.push_back(ref);
  }
  apply_rates(each_alone() ? alone_rates() : shared_rates());
  if (time_recomputes_) {
    recompute_wall_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  }
}

// Whether no link of the component carries more than one crossing, as the
// edges of a ring alone on its NVSwitch ports do: each flow then simply runs
// at its slowest link, which is what water-filling would find.
bool FlowNetwork::each_alone() const {
  return std::all_of(touched_.begin(), touched_.end(), [&](LinkId link) { return links_[link].flows.size() <= 1; });
}

const std::vector<double>& FlowNetwork::alone_rates() {
  alone_rates_.clear();
  for (const FlowRef& ref : component_) {
    const Flow& flow = slots_[ref.slot];
    alone_rates_.push_back(alone_rate(flow.links, flow.shares, flow.max_rate));
  }
  return alone_rates_;
}

const std::vector<double>& FlowNetwork::shared_rates() {
  solver_.clear();
  for (const FlowRef& ref : component_) {
    const Flow& flow = slots_[ref.slot];
    solver_.add_flow(flow.links, flow.shares, flow.max_rate);
  }
  return solver_.solve(capacity_);
}

// Installs one rate per component_ flow. Link sums are rebuilt in flow id
// order, so their floating-point rounding never depends on slot numbers.
void FlowNetwork::apply_rates(const std::vector<double>& rates_bytes_per_s) {
  for (LinkId link : touched_) links_[link].rate_sum = 0.0;
  for (std::size_t i = 0; i < component_.size(); ++i) {
    const std::uint32_t slot = component_[i].slot;
    Flow& flow = slots_[slot];
    // An unchanged rate keeps its completion event: no heap churn for flows
    // that merely share a component with the change.
    const bool changed = flow.rate != rates_bytes_per_s[i] || flow.group == kNoGroup;
    const double old_rate = flow.rate;
    flow.rate = rates_bytes_per_s[i];
    if (!flow.counted.empty() && flow.rate != old_rate) count_rate_change(flow, old_rate);
    if (flow.shares.empty()) {
      for (LinkId link : flow.links) links_[link].rate_sum += flow.rate;
    } else {
      for (std::size_t k = 0; k < flow.links.size(); ++k) links_[flow.links[k]].rate_sum += flow.rate * flow.shares[k];
    }
    if (changed) reschedule(slot);
  }
  schedule_due();
}

void FlowNetwork::reschedule(std::uint32_t slot) {
  leave_group(slot);
  const Flow& flow = slots_[slot];
  if (!(flow.rate > 0.0)) return;  // starved for now; a later recompute reschedules it
  due_.push_back({later_by(engine_.now(), seconds_to_ps(flow.remaining_bytes / flow.rate)), slot});
}

void FlowNetwork::leave_group(std::uint32_t slot) {
  const std::uint32_t g = std::exchange(slots_[slot].group, kNoGroup);
  if (g == kNoGroup) return;
  CompletionGroup& group = groups_[g];
  if (--group.live > 0 || !group.event.valid()) return;
  engine_.cancel(group.event);
  if (group.hold != kNoHold) drop_hold_event(std::exchange(group.hold, kNoHold));
  groups_.release(g);
}

// One event per distinct drain time. Within this recompute every event is
// scheduled back to back, so a group drains its flows in the order their
// own events would have run, and nothing else can fall between them.
void FlowNetwork::schedule_due() {
  std::stable_sort(due_.begin(), due_.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < due_.size();) {
    const std::uint32_t g = groups_.acquire();
    CompletionGroup& group = groups_[g];
    group.members.clear();
    group.hold = kNoHold;
    const TimePs at = due_[i].first;
    for (; i < due_.size() && due_[i].first == at; ++i) {
      group.members.push_back(due_[i].second);
      slots_[due_[i].second].group = g;
    }
    group.live = static_cast<std::uint32_t>(group.members.size());
    group.event = engine_.schedule_at(at, [this, g] { fire(g); });
  }
  due_.clear();
}

// Drains the members still in the group; a member's callbacks may start
// flows that re-share (and so reschedule) the members after it.
void FlowNetwork::fire(std::uint32_t g) {
  groups_[g].event = EventId{};
  for (std::size_t k = 0; k < groups_[g].members.size(); ++k) {
    const std::uint32_t slot = groups_[g].members[k];
    if (slots_[slot].group == g) drain(slot);
  }
  groups_.release(g);
}

void FlowNetwork::drain(std::uint32_t slot) {
  Flow& flow = slots_[slot];
  for (std::size_t i = 0; i < flow.counted.size(); ++i) {
    settle_link(flow.counted[i]);
    LinkState& state = links_[flow.counted[i]];
    state.rate_sum =
        --state.counted_flows == 0 ? 0.0 : std::max(0.0, state.rate_sum - flow.rate * flow.counted_share(i));
  }
  for (LinkId link : flow.links) settle_link(link);
  for (std::size_t i = 0; i < flow.links.size(); ++i) {
    auto& list = links_[flow.links[i]].flows;
    list.erase(
        std::lower_bound(list.begin(), list.end(), flow.id, [](const FlowRef& ref, FlowId id) { return ref.id < id; }));
    // An emptied link carries exactly nothing (a re-share would zero it too).
    LinkState& state = links_[flow.links[i]];
    state.rate_sum = list.empty() ? 0.0 : std::max(0.0, state.rate_sum - flow.rate * flow.share(i));
  }
  // The survivors that shared links with it re-expand into the freed capacity,
  // once for all flows draining at this instant (a collective's flows often
  // end together), after the ones already queued for now have run.
  // A flow that shared no link leaves nothing to re-share (a collective
  // alone on its NVLink ports): no seeds, and no flush event for it.
  const bool shared =
      std::any_of(flow.links.begin(), flow.links.end(), [&](LinkId link) { return !links_[link].flows.empty(); });
  if (shared) drained_seeds_.insert(drained_seeds_.end(), flow.links.begin(), flow.links.end());
  // The callbacks may start flows, which may reuse this slot or move slots_.
  Callback on_drained = std::move(flow.on_drained);
  Callback on_done = std::move(flow.on_done);
  const TimePs latency = flow.latency;
  release_slot(slot);
  if (shared && !flush_scheduled_) {
    flush_scheduled_ = true;
    engine_.schedule_after(0, [this] { flush_drained(); });
  }
  finish(std::move(on_drained), std::move(on_done), latency);
}

void FlowNetwork::flush_drained() {
  flush_scheduled_ = false;
  // Seeds form a set: the component search dedupes them, so no sort is needed.
  recompute(drained_seeds_, {});
  drained_seeds_.clear();
}

void FlowNetwork::finish(Callback on_drained, Callback on_done, TimePs latency) {
  if (on_drained) on_drained();
  if (!on_done) return;
  if (latency == 0) {
    on_done();
  } else {
    engine_.schedule_after(latency, std::move(on_done));
  }
}

}  // namespace simctl

namespace simctl {

// The stats readers add the part since the last settle, so they are exact at any time.
double FlowNetwork::bytes_carried(LinkId link) const {
  const LinkState& state = links_.at(link);
  const bool drained = state.hold != kNoHold && state.held_until <= engine_.now();
  return state.carried_bytes +
         state.rate_sum * ps_to_seconds((drained ? state.held_until : engine_.now()) - state.settled_at);
}

TimePs FlowNetwork::busy_time(LinkId link) const {
  const LinkState& state = links_.at(link);
  const bool drained = state.hold != kNoHold && state.held_until <= engine_.now();
  return state.busy_ps +
         (drained ? state.held_until - state.settled_at : (link_busy(state) ? engine_.now() - state.settled_at : 0));
}

double FlowNetwork::utilisation(LinkId link, TimePs window) const {
  if (window <= 0) return 0.0;
  return bytes_carried(link) / (capacity_.at(link) * ps_to_seconds(window));
}

}  // namespace simctl
