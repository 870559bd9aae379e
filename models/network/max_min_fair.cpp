#include "models/network/max_min_fair.hpp"

#include <algorithm>
#include <limits>

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

// The link with the smallest fair share among links that still have open flows.
int bottleneck(const std::vector<LinkState>& links) {
  int best = -1;
  double best_share = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < links.size(); ++i) {
    if (links[i].unfixed == 0) continue;
    const double share = std::max(0.0, links[i].remaining) / links[i].unfixed;
    if (share < best_share) {
      best_share = share;
      best = static_cast<int>(i);
    }
  }
  return best;
}

}  // namespace

std::vector<double> max_min_fair_rates(const std::vector<const std::vector<LinkId>*>& flow_links,
                                       const std::vector<double>& capacity_bytes_per_s) {
  std::vector<std::vector<int>> local_of;
  std::vector<LinkState> links = gather_links(flow_links, capacity_bytes_per_s, local_of);
  std::vector<double> rate(flow_links.size(), -1.0);  // -1: not yet fixed
  for (int b = bottleneck(links); b >= 0; b = bottleneck(links)) {
    const double share = std::max(0.0, links[b].remaining) / links[b].unfixed;
    for (int f : links[b].flows) {
      if (rate[f] >= 0.0) continue;
      rate[f] = share;
      // A flow crossing a link twice uses its capacity twice.
      for (int l : local_of[f]) {
        links[l].remaining -= share;
        --links[l].unfixed;
      }
    }
  }
  return rate;
}

}  // namespace simctl
