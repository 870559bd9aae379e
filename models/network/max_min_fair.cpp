#include "models/network/max_min_fair.hpp"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <queue>

namespace simctl {

namespace {

// Per-link bookkeeping over the links this problem touches, in local indices.
struct LinkState {
  LinkId id = 0;
  double remaining = 0.0;  // capacity not yet given to fixed flows
  int unfixed = 0;         // crossings by flows whose rate is still open
  std::vector<int> flows;  // flows crossing this link (one entry per crossing)
};

std::vector<LinkState> gather_links(const std::vector<const std::vector<LinkId>*>& flow_links,
                                    const std::vector<double>& capacity, std::vector<std::vector<int>>& local_of) {
  std::vector<LinkId> ids;
  for (const auto* links : flow_links) ids.insert(ids.end(), links->begin(), links->end());
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  std::vector<LinkState> state(ids.size());
  for (std::size_t i = 0; i < ids.size(); ++i) state[i] = LinkState{ids[i], capacity.at(ids[i]), 0, {}};
  local_of.assign(flow_links.size(), {});
  for (std::size_t f = 0; f < flow_links.size(); ++f) {
    for (LinkId id : *flow_links[f]) {
      const auto local = static_cast<int>(std::lower_bound(ids.begin(), ids.end(), id) - ids.begin());
      local_of[f].push_back(local);
      state[local].flows.push_back(static_cast<int>(f));
      ++state[local].unfixed;
    }
  }
  return state;
}

double share_of(const LinkState& link) { return std::max(0.0, link.remaining) / link.unfixed; }

// Candidate bottlenecks, smallest share first (ties: lowest link id). A
// link's share never falls as flows are fixed (each fixed flow takes the
// current minimum, at most the link's own share), so entries go stale only
// upwards and are re-pushed with a new version when their link changes.
struct Candidate {
  double share;
  int link;
  std::uint32_t version;
  bool operator>(const Candidate& o) const { return share != o.share ? share > o.share : link > o.link; }
};
using CandidateQueue = std::priority_queue<Candidate, std::vector<Candidate>, std::greater<>>;

}  // namespace

std::vector<double> max_min_fair_rates(const std::vector<const std::vector<LinkId>*>& flow_links,
                                       const std::vector<double>& capacity_bytes_per_s) {
  std::vector<std::vector<int>> local_of;
  std::vector<LinkState> links = gather_links(flow_links, capacity_bytes_per_s, local_of);
  std::vector<double> rate(flow_links.size(), -1.0);  // -1: not yet fixed
  std::vector<std::uint32_t> version(links.size(), 0);
  CandidateQueue queue;
  for (std::size_t i = 0; i < links.size(); ++i) queue.push({share_of(links[i]), static_cast<int>(i), 0});
  std::vector<int> changed;
  while (!queue.empty()) {
    const Candidate top = queue.top();
    queue.pop();
    LinkState& b = links[top.link];
    if (top.version != version[top.link] || b.unfixed == 0) continue;
    const double share = top.share;
    changed.clear();
    for (int f : b.flows) {
      if (rate[f] >= 0.0) continue;
      rate[f] = share;
      // A flow crossing a link twice uses its capacity twice.
      for (int l : local_of[f]) {
        links[l].remaining -= share;
        --links[l].unfixed;
        changed.push_back(l);
      }
    }
    std::sort(changed.begin(), changed.end());
    changed.erase(std::unique(changed.begin(), changed.end()), changed.end());
    for (int l : changed) {
      ++version[l];
      if (links[l].unfixed > 0) queue.push({share_of(links[l]), l, version[l]});
    }
  }
  return rate;
}

}  // namespace simctl
