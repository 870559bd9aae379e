// Held flows (FlowNetwork::start_held): flows alone on their links, whose
// rates nothing can change until another flow arrives, kept out of the link
// lists, the slot map and the per-flow events until then. Everything here
// reproduces, step for step, what start(), recompute() and drain() would
// have done to the same flows, so that holding changes no result.
#include <algorithm>

#include "models/network/flow_network.hpp"

namespace simctl {

// Each path's links are free, and no link is crossed twice, so each flow
// would run at its own slowest link: what alone_rates() would find.
bool FlowNetwork::can_hold(std::span<const Path* const> paths) {
  if (batching_ && !batch_.empty()) return false;  // their links are not in the lists yet
  next_mark_epoch();
  for (const Path* path : paths) {
    if (path->links.empty() || !path->shares.empty()) return false;
    for (LinkId link : path->links) {
      if (link >= links_.size()) return false;  // start() says what is wrong
      expire_hold(link);
      LinkState& state = links_[link];
      if (state.count_only || !state.flows.empty() || state.counted_flows > 0 || state.hold != kNoHold) return false;
      if (state.visit_mark == mark_epoch_) return false;
      state.visit_mark = mark_epoch_;
    }
  }
  return true;
}

bool FlowNetwork::start_held(std::span<const Path* const> paths, std::span<const double> bytes,
                             std::span<const double> max_bytes_per_s, HoldOwner& owner, std::uint32_t tag) {
  if (paths.size() != bytes.size() || paths.size() != max_bytes_per_s.size() || paths.empty()) return false;
  if (!std::all_of(bytes.begin(), bytes.end(), [](double b) { return b > 0.0; })) return false;
  if (!std::all_of(max_bytes_per_s.begin(), max_bytes_per_s.end(), [](double r) { return r > 0.0; })) return false;
  if (!can_hold(paths)) return false;
  const TimePs now = engine_.now();
  const std::uint32_t h = holds_.acquire();
  Hold& hold = holds_[h];
  hold.flows.clear();
  hold.links.clear();
  hold.events.clear();
  hold.started = now;
  hold.batch = batching_ ? batch_serial_ : 0;
  hold.ordinary = false;
  hold.owner = &owner;
  hold.tag = tag;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const Path& path = *paths[i];
    HeldFlow flow;
    flow.id = next_id_++;
    ++flows_started_;
    flow.first_link = static_cast<std::uint32_t>(hold.links.size());
    flow.link_count = static_cast<std::uint32_t>(path.links.size());
    flow.latency = path.latency;
    flow.bytes = bytes[i];
    flow.max_rate = max_bytes_per_s[i];
    flow.rate = alone_rate(path.links, {}, flow.max_rate);
    flow.drains_at = later_by(now, seconds_to_ps(flow.bytes / flow.rate));
    hold.links.insert(hold.links.end(), path.links.begin(), path.links.end());
    for (LinkId link : path.links) {
      settle_link(link);
      LinkState& state = links_[link];
      state.rate_sum = 0.0 + flow.rate;  // as apply_rates() rebuilds it
      state.hold = h;
      state.held_until = flow.drains_at;
    }
    hold.flows.push_back(flow);
    hold.events.push_back(HoldEvent{flow.drains_at, {}, kNoGroup, false});
  }
  auto& events = hold.events;
  std::sort(events.begin(), events.end(), [](const HoldEvent& a, const HoldEvent& b) { return a.at < b.at; });
  events.erase(
      std::unique(events.begin(), events.end(), [](const HoldEvent& a, const HoldEvent& b) { return a.at == b.at; }),
      events.end());
  for (std::uint32_t k = 0; k < events.size(); ++k) {
    events[k].id = engine_.schedule_at(events[k].at, [this, h, k] { hold_event(h, k); });
  }
  hold.live_events = static_cast<std::uint32_t>(events.size());
  return true;
}

// A held link whose flow has drained by now is settled up to the drain, as
// drain() would have settled it then, and freed.
void FlowNetwork::expire_hold(LinkId link) {
  LinkState& state = links_[link];
  if (state.hold == kNoHold || state.held_until > engine_.now()) return;
  const TimePs elapsed = state.held_until - state.settled_at;
  state.carried_bytes += state.rate_sum * ps_to_seconds(elapsed);
  state.busy_ps += elapsed;
  state.settled_at = state.held_until;
  state.rate_sum = 0.0;
  state.hold = kNoHold;
}

void FlowNetwork::release_held_links(const Hold& hold, std::uint32_t h, const HeldFlow& flow) {
  for (std::uint32_t k = 0; k < flow.link_count; ++k) {
    const LinkId link = hold.links[flow.first_link + k];
    if (links_[link].hold == h) expire_hold(link);
  }
}

// The last flow has drained: each one's drain reported in id order, as the
// completion groups of ordinary flows would have reported them.
void FlowNetwork::report_held_drains(std::uint32_t h) {
  for (std::uint32_t i = 0; i < holds_[h].flows.size(); ++i) {
    const Hold& hold = holds_[h];  // the owner may take holds, moving the pool
    const HeldFlow flow = hold.flows[i];
    HoldOwner& owner = *hold.owner;
    const std::uint32_t tag = hold.tag;
    release_held_links(hold, h, flow);
    owner.held_flow_drained(tag, i, flow.drains_at);
  }
}

void FlowNetwork::hold_event(std::uint32_t h, std::uint32_t k) {
  Hold& hold = holds_[h];
  hold.events[k].fired = true;
  const std::uint32_t group = hold.events[k].group;
  if (!hold.ordinary && k + 1 == hold.events.size()) report_held_drains(h);
  drop_hold_event(h);
  if (group == kNoGroup) return;
  groups_[group].hold = kNoHold;
  fire(group);
}

void FlowNetwork::drop_hold_event(std::uint32_t h) {
  if (--holds_[h].live_events == 0) holds_.release(h);
}

// Flow i of `hold` as the ordinary flow start() would have made of it, not
// yet on its links or in a group.
std::uint32_t FlowNetwork::ordinary_flow(const Hold& hold, std::uint32_t i) {
  const HeldFlow& held = hold.flows[i];
  const std::uint32_t slot = slots_.acquire();
  Flow& flow = reset_flow(slot, held.id, held.latency, held.bytes, held.max_rate, hold.started);
  flow.links.assign(hold.links.begin() + held.first_link, hold.links.begin() + held.first_link + held.link_count);
  flow.rate = held.rate;
  flow.on_done = nullptr;
  flow.on_drained = [this, owner = hold.owner, tag = hold.tag, i] { owner->held_flow_drained(tag, i, engine_.now()); };
  slot_of_.insert(flow.id, slot);
  for (LinkId link : flow.links) links_[link].hold = kNoHold;
  return slot;
}

// Another flow arrives on a held link: the set's flows that have not drained
// become ordinary flows, started when the set started, at their rates, in
// completion groups on the set's own events, so the arrival re-shares them
// and their drains run in the order they would have.
void FlowNetwork::unhold(std::uint32_t h) {
  if (batching_ && holds_[h].batch == batch_serial_) return unhold_into_batch(h);
  holds_[h].ordinary = true;
  for (std::uint32_t i = 0; i < holds_[h].flows.size(); ++i) {
    const Hold& hold = holds_[h];
    const HeldFlow held = hold.flows[i];
    const auto event = std::lower_bound(hold.events.begin(), hold.events.end(), held.drains_at,
                                        [](const HoldEvent& e, TimePs at) { return e.at < at; });
    const auto k = static_cast<std::uint32_t>(event - hold.events.begin());
    if (event->fired) {
      release_held_links(hold, h, held);
      hold.owner->held_flow_drained(hold.tag, i, held.drains_at);
      continue;
    }
    const std::uint32_t slot = ordinary_flow(hold, i);
    for (LinkId link : slots_[slot].links) {
      links_[link].flows.push_back(FlowRef{held.id, slot});  // alone there: the list was empty
    }
    std::uint32_t& group = holds_[h].events[k].group;
    if (group == kNoGroup) {
      group = groups_.acquire();
      groups_[group].members.clear();
      groups_[group].live = 0;
      groups_[group].event = holds_[h].events[k].id;
      groups_[group].hold = h;
    }
    groups_[group].members.push_back(slot);
    ++groups_[group].live;
    slots_[slot].group = group;
  }
}

// A set held in the batch now open, broken up before the batch ends: its
// flows join the batch, as they would have without the hold.
void FlowNetwork::unhold_into_batch(std::uint32_t h) {
  for (const HoldEvent& event : holds_[h].events) engine_.cancel(event.id);
  for (std::uint32_t i = 0; i < holds_[h].flows.size(); ++i) {
    const std::uint32_t slot = ordinary_flow(holds_[h], i);
    slots_[slot].rate = 0.0;  // set by the batch's re-share
    for (LinkId link : slots_[slot].links) links_[link].rate_sum = 0.0;
    const FlowRef ref{slots_[slot].id, slot};
    batch_.insert(std::lower_bound(batch_.begin(), batch_.end(), ref,
                                   [](const FlowRef& a, const FlowRef& b) { return a.id < b.id; }),
                  ref);
  }
  holds_.release(h);
}

// Before a flow joins `path`, no link of it is held any more.
void FlowNetwork::free_held_links(const Path& path) {
  for (LinkId link : path.links) {
    if (link >= links_.size() || links_[link].hold == kNoHold) continue;
    expire_hold(link);
    if (links_[link].hold != kNoHold) unhold(links_[link].hold);
  }
}

}  // namespace simctl
