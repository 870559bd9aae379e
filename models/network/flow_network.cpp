#include "models/network/flow_network.hpp"

#include <algorithm>
#include <chrono>
#include <optional>
#include <set>
#include <stdexcept>

#include "models/network/max_min_fair.hpp"

namespace simctl {

FlowNetwork::FlowNetwork(Engine& engine, std::vector<Bandwidth> effective_capacity_per_link)
    : engine_(engine), links_(effective_capacity_per_link.size()) {
  capacity_.reserve(effective_capacity_per_link.size());
  for (Bandwidth b : effective_capacity_per_link) {
    if (!(b.bytes_per_s > 0.0)) throw std::invalid_argument("FlowNetwork: link capacity must be positive");
    capacity_.push_back(b.bytes_per_s);
  }
}

FlowId FlowNetwork::start(const Path& path, double bytes, Callback on_done, Callback on_drained) {
  const FlowId id = next_id_++;
  ++flows_started_;
  if (!(bytes > 0.0) || path.links.empty()) {
    // Nothing occupies a link; schedule rather than call so callers never re-enter.
    engine_.schedule_after(0, [this, d = std::move(on_drained), o = std::move(on_done), l = path.latency]() mutable {
      finish(std::move(d), std::move(o), l);
    });
    return id;
  }
  for (LinkId link : path.links) {
    if (link >= links_.size()) throw std::out_of_range("FlowNetwork::start: path uses an unknown link");
  }
  Flow& flow = flows_[id];
  flow.links = path.links;
  flow.latency = path.latency;
  flow.remaining_bytes = bytes;
  flow.updated_at = engine_.now();
  flow.on_done = std::move(on_done);
  flow.on_drained = std::move(on_drained);
  if (batching_) {
    batch_.push_back(id);
  } else {
    recompute(flow.links, {id});
  }
  return id;
}

void FlowNetwork::begin_batch() { batching_ = true; }

void FlowNetwork::end_batch() {
  batching_ = false;
  if (batch_.empty()) return;
  std::vector<FlowId> joining = std::move(batch_);
  batch_.clear();
  std::vector<LinkId> seeds;
  for (FlowId id : joining) seeds.insert(seeds.end(), flows_.at(id).links.begin(), flows_.at(id).links.end());
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  recompute(seeds, joining);
}

double FlowNetwork::rate_of(FlowId id) const {
  auto it = flows_.find(id);
  return it == flows_.end() ? 0.0 : it->second.rate;
}

// All active flows connected to `seeds` through shared links, in id order.
std::vector<FlowId> FlowNetwork::component_of(const std::vector<LinkId>& seeds) const {
  std::set<FlowId> found;
  std::set<LinkId> visited;
  std::vector<LinkId> frontier(seeds.begin(), seeds.end());
  while (!frontier.empty()) {
    const LinkId link = frontier.back();
    frontier.pop_back();
    if (!visited.insert(link).second) continue;
    for (FlowId id : links_[link].flows) {
      if (!found.insert(id).second) continue;
      const Flow& flow = flows_.at(id);
      frontier.insert(frontier.end(), flow.links.begin(), flow.links.end());
    }
  }
  return {found.begin(), found.end()};
}

void FlowNetwork::advance(Flow& flow) {
  const TimePs now = engine_.now();
  flow.remaining_bytes = std::max(0.0, flow.remaining_bytes - flow.rate * ps_to_seconds(now - flow.updated_at));
  flow.updated_at = now;
}

void FlowNetwork::settle_link(LinkId link) {
  LinkState& state = links_[link];
  const TimePs now = engine_.now();
  const TimePs elapsed = now - state.settled_at;
  state.carried_bytes += state.rate_sum * ps_to_seconds(elapsed);
  if (!state.flows.empty()) state.busy_ps += elapsed;
  state.settled_at = now;
}

void FlowNetwork::recompute(const std::vector<LinkId>& seeds, const std::vector<FlowId>& joining) {
  ++recomputations_;
  const auto wall_start = std::chrono::steady_clock::now();
  // Everything connected to the seeds is brought up to now at the old rates
  // before any rate changes.
  std::vector<FlowId> ids = component_of(seeds);
  std::set<LinkId> touched(seeds.begin(), seeds.end());
  for (FlowId id : ids) touched.insert(flows_.at(id).links.begin(), flows_.at(id).links.end());
  for (LinkId link : touched) settle_link(link);
  for (FlowId id : ids) advance(flows_.at(id));
  for (FlowId id : joining) {
    // Ids grow monotonically, so newcomers go last in every id-ordered list.
    for (LinkId link : flows_.at(id).links) links_[link].flows.push_back(id);
    ids.push_back(id);
    touched.insert(flows_.at(id).links.begin(), flows_.at(id).links.end());
  }

  std::vector<const std::vector<LinkId>*> paths;
  for (FlowId id : ids) paths.push_back(&flows_.at(id).links);
  const std::vector<double> rates = max_min_fair_rates(paths, capacity_);
  for (LinkId link : touched) links_[link].rate_sum = 0.0;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    Flow& flow = flows_.at(ids[i]);
    // An unchanged rate keeps its completion event: no heap churn for flows
    // that merely share a component with the change.
    const bool changed = flow.rate != rates[i] || !flow.completion.valid();
    flow.rate = rates[i];
    for (LinkId link : flow.links) links_[link].rate_sum += flow.rate;
    if (changed) reschedule(ids[i], flow);
  }
  recompute_wall_s_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
}

void FlowNetwork::reschedule(FlowId id, Flow& flow) {
  engine_.cancel(flow.completion);
  flow.completion = EventId{};
  if (!(flow.rate > 0.0)) return;  // starved for now; a later recompute reschedules it
  const TimePs drain_in = seconds_to_ps(flow.remaining_bytes / flow.rate);
  flow.completion = engine_.schedule_after(drain_in, [this, id] { drain(id); });
}

void FlowNetwork::drain(FlowId id) {
  auto it = flows_.find(id);
  Flow flow = std::move(it->second);
  for (LinkId link : flow.links) settle_link(link);
  for (LinkId link : flow.links) {
    auto& list = links_[link].flows;
    list.erase(std::lower_bound(list.begin(), list.end(), id));
    links_[link].rate_sum = std::max(0.0, links_[link].rate_sum - flow.rate);
  }
  flows_.erase(it);
  // The survivors that shared links with it re-expand into the freed capacity,
  // once for all flows draining at this instant (a collective's flows often
  // end together), after the ones already queued for now have run.
  drained_seeds_.insert(drained_seeds_.end(), flow.links.begin(), flow.links.end());
  if (!flush_scheduled_) {
    flush_scheduled_ = true;
    engine_.schedule_after(0, [this] { flush_drained(); });
  }
  finish(std::move(flow.on_drained), std::move(flow.on_done), flow.latency);
}

void FlowNetwork::flush_drained() {
  flush_scheduled_ = false;
  std::vector<LinkId> seeds = std::move(drained_seeds_);
  drained_seeds_.clear();
  std::sort(seeds.begin(), seeds.end());
  seeds.erase(std::unique(seeds.begin(), seeds.end()), seeds.end());
  recompute(seeds, {});
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
  return state.carried_bytes + state.rate_sum * ps_to_seconds(engine_.now() - state.settled_at);
}

TimePs FlowNetwork::busy_time(LinkId link) const {
  const LinkState& state = links_.at(link);
  return state.busy_ps + (state.flows.empty() ? 0 : engine_.now() - state.settled_at);
}

double FlowNetwork::utilisation(LinkId link, TimePs window) const {
  if (window <= 0) return 0.0;
  return bytes_carried(link) / (capacity_.at(link) * ps_to_seconds(window));
}

}  // namespace simctl
