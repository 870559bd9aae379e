#pragma once
// Max-min fair rates by progressive filling (water-filling): repeatedly find
// the link whose remaining capacity split among its still-unfixed flows is the
// smallest, fix those flows at that share, and remove their rate everywhere.
// Kept apart from the event loop so that it can be tested on its own.
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "models/network/path.hpp"

namespace simctl {

// A reusable solver: the flow network solves a problem on every flow start
// and drain (millions per run), so all working storage lives here and is kept
// between calls; a steady-state solve allocates nothing.
class MaxMinFairSolver {
 public:
  // Starts a new problem with no flows.
  void clear();
  // Adds the next flow (numbered from 0 in call order); `links` lists the
  // directed links it crosses and must not be empty. A finite
  // `max_bytes_per_s` caps the flow's own rate (what a sender can push, as
  // NCCL's CTAs bound a channel): a private link of that capacity.
  void add_flow(std::span<const LinkId> links, double max_bytes_per_s = std::numeric_limits<double>::infinity());
  // The same for a flow that puts only `shares[i]` (0 < share <= 1) of its
  // rate on links[i] (a connection spread over queue pairs, Path::shares);
  // an empty `shares` is the plain add_flow. Water-filling raises every open
  // flow's rate alike, so a link's fair share is its remaining capacity over
  // the summed shares of the open flows crossing it.
  void add_flow(std::span<const LinkId> links, std::span<const double> shares,
                double max_bytes_per_s = std::numeric_limits<double>::infinity());
  // One rate per added flow, in bytes per second, valid until the next
  // clear(). `capacity_bytes_per_s` is indexed by LinkId. Ties are broken by
  // lowest link id, so results are deterministic.
  const std::vector<double>& solve(const std::vector<double>& capacity_bytes_per_s);

 private:
  // A candidate bottleneck; the smallest share comes first (ties: lowest link id).
  struct Candidate {
    double share;
    LinkId link_id;
    std::uint32_t local;
    std::uint32_t version;
    bool operator>(const Candidate& o) const { return share != o.share ? share > o.share : link_id > o.link_id; }
  };

  // Ids of private cap links, past any real link's: ties between a cap and a
  // link break the same way in every run.
  static constexpr LinkId kCapLinkBase = LinkId{1} << 31;

  std::uint32_t local_index(LinkId link);
  void index_link_flows();
  void fix_flows_of(std::uint32_t bottleneck, double share);
  void push_candidate(std::uint32_t local);
  void next_epoch();

  // Per global link: its local index in the current problem, valid while
  // stamp == epoch_ (so nothing is cleared between problems).
  std::vector<std::uint32_t> local_of_link_;
  std::vector<std::uint32_t> link_stamp_;
  std::uint32_t epoch_ = 0;

  // Flow -> local links, as CSR: flow f crosses flow_links_[flow_begin_[f] .. flow_begin_[f + 1]),
  // putting flow_shares_[i] of its rate on flow_links_[i].
  std::vector<std::uint32_t> flow_begin_{0};
  std::vector<std::uint32_t> flow_links_;
  std::vector<double> flow_shares_;
  // Local link -> crossing flows, as CSR, in flow order with one entry per crossing.
  std::vector<std::uint32_t> link_begin_;
  std::vector<std::uint32_t> link_flows_;
  std::vector<std::uint32_t> fill_cursor_;  // next free slot per link while building link_flows_

  // Per local link.
  std::vector<LinkId> link_id_;                // a flow's private cap: kCapLinkBase + the flow's number
  std::vector<double> cap_bytes_per_s_;        // per local link: a private cap's capacity; < 0 for a real link
  std::vector<double> remaining_bytes_per_s_;  // capacity not yet given to fixed flows
  std::vector<int> unfixed_;                   // crossings by flows whose rate is still open
  std::vector<double> open_share_;             // their summed shares (== unfixed_ when every share is 1)
  std::vector<std::uint32_t> version_;         // bumped whenever the link's share changes
  std::vector<std::uint32_t> changed_stamp_;   // dedupes `changed_` within one fixing round

  std::vector<double> rate_bytes_per_s_;  // per flow; -1: not yet fixed
  std::vector<Candidate> heap_;
  std::vector<std::uint32_t> changed_;
  std::uint32_t round_ = 0;
};

// `flow_links[f]` lists the directed links flow f crosses (non-empty);
// `capacity_bytes_per_s[l]` is indexed by LinkId. Returns one rate per flow,
// in bytes per second. Ties are broken by lowest link id, so results are
// deterministic. A one-shot convenience over MaxMinFairSolver.
std::vector<double> max_min_fair_rates(const std::vector<const std::vector<LinkId>*>& flow_links,
                                       const std::vector<double>& capacity_bytes_per_s);

}  // namespace simctl
