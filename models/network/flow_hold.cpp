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
  hold.started = now;
  hold.owner = &owner;
  hold.tag = tag;
  TimePs last = now;
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
    flow.rate = flow.max_rate;
    for (LinkId link : path.links) flow.rate = std::min(flow.rate, capacity_[link]);
    flow.drains_at = later_by(now, seconds_to_ps(flow.bytes / flow.rate));
    hold.links.insert(hold.links.end(), path.links.begin(), path.links.end());
    for (LinkId link : path.links) {
      settle_link(link);
      LinkState& state = links_[link];
      state.rate_sum = 0.0 + flow.rate;  // as apply_rates() rebuilds it
      state.hold = h;
      state.held_until = flow.drains_at;
    }
    last = std::max(last, flow.drains_at);
    hold.flows.push_back(flow);
  }
  hold.event = engine_.schedule_at(last, [this, h] { end_hold(h); });
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
void FlowNetwork::end_hold(std::uint32_t h) {
  holds_[h].event = EventId{};
  for (std::uint32_t i = 0; i < holds_[h].flows.size(); ++i) {
    const Hold& hold = holds_[h];  // the owner may take holds, moving the pool
    const HeldFlow flow = hold.flows[i];
    HoldOwner& owner = *hold.owner;
    const std::uint32_t tag = hold.tag;
    release_held_links(hold, h, flow);
    owner.held_flow_drained(tag, i, flow.drains_at);
  }
  holds_.release(h);
}

// Another flow arrives on a held link: the set's flows that have not drained
// become ordinary flows, started when the set started, at their rates and
// with their drain times, so the arrival re-shares them as it would have.
void FlowNetwork::unhold(std::uint32_t h) {
  engine_.cancel(holds_[h].event);
  const TimePs now = engine_.now();
  for (std::uint32_t i = 0; i < holds_[h].flows.size(); ++i) {
    const Hold& hold = holds_[h];
    const HeldFlow held = hold.flows[i];
    HoldOwner* owner = hold.owner;
    const std::uint32_t tag = hold.tag;
    if (held.drains_at <= now) {
      release_held_links(hold, h, held);
      owner->held_flow_drained(tag, i, held.drains_at);
      continue;
    }
    const std::uint32_t slot = slots_.acquire();
    Flow& flow = slots_[slot];
    flow.id = held.id;
    flow.links.assign(hold.links.begin() + held.first_link, hold.links.begin() + held.first_link + held.link_count);
    flow.counted.clear();
    flow.shares.clear();
    flow.counted_shares.clear();
    flow.latency = held.latency;
    flow.remaining_bytes = held.bytes;
    flow.rate = held.rate;
    flow.max_rate = held.max_rate;
    flow.updated_at = hold.started;
    flow.group = kNoGroup;
    flow.on_done = nullptr;
    flow.on_drained = [this, owner, tag, i] { owner->held_flow_drained(tag, i, engine_.now()); };
    slot_of_.insert(flow.id, slot);
    for (LinkId link : flow.links) {
      links_[link].flows.push_back(FlowRef{flow.id, slot});  // alone there: the list was empty
      links_[link].hold = kNoHold;
    }
    due_.push_back({held.drains_at, slot});
  }
  schedule_due();
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
