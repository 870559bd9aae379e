#include "models/network/max_min_fair.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <stdexcept>

namespace simctl {

void MaxMinFairSolver::next_epoch() {
  // Stamps from 2^32 problems ago would alias the new epoch: forget them all.
  if (++epoch_ == 0) {
    std::fill(link_stamp_.begin(), link_stamp_.end(), 0u);
    epoch_ = 1;
  }
}

void MaxMinFairSolver::clear() {
  next_epoch();
  flow_begin_.assign(1, 0u);
  flow_links_.clear();
  flow_shares_.clear();
  link_id_.clear();
  cap_bytes_per_s_.clear();
}

std::uint32_t MaxMinFairSolver::local_index(LinkId link) {
  if (link >= local_of_link_.size()) {
    const std::size_t size = std::max<std::size_t>(std::size_t{link} + 1, 2 * local_of_link_.size());
    local_of_link_.resize(size, 0u);
    link_stamp_.resize(size, 0u);
  }
  if (link_stamp_[link] != epoch_) {
    link_stamp_[link] = epoch_;
    local_of_link_[link] = static_cast<std::uint32_t>(link_id_.size());
    link_id_.push_back(link);
    cap_bytes_per_s_.push_back(-1.0);
  }
  return local_of_link_[link];
}

void MaxMinFairSolver::add_flow(std::span<const LinkId> links, double max_bytes_per_s) {
  add_flow(links, {}, max_bytes_per_s);
}

void MaxMinFairSolver::add_flow(std::span<const LinkId> links, std::span<const double> shares, double max_bytes_per_s) {
  if (!shares.empty() && shares.size() != links.size()) {
    throw std::invalid_argument("MaxMinFairSolver::add_flow: one share per link, or none");
  }
  for (std::size_t i = 0; i < links.size(); ++i) {
    flow_links_.push_back(local_index(links[i]));
    flow_shares_.push_back(shares.empty() ? 1.0 : shares[i]);
  }
  if (max_bytes_per_s < std::numeric_limits<double>::infinity()) {
    const auto flow = static_cast<LinkId>(flow_begin_.size() - 1);
    flow_links_.push_back(static_cast<std::uint32_t>(link_id_.size()));
    flow_shares_.push_back(1.0);
    link_id_.push_back(kCapLinkBase + flow);
    cap_bytes_per_s_.push_back(std::max(0.0, max_bytes_per_s));
  }
  flow_begin_.push_back(static_cast<std::uint32_t>(flow_links_.size()));
}

// Builds the link -> flows CSR. Each link lists its flows in flow order, once
// per crossing: the order in which fixing a bottleneck subtracts from the
// other links, which the floating-point results depend on.
void MaxMinFairSolver::index_link_flows() {
  const std::size_t link_count = link_id_.size();
  const std::size_t flow_count = flow_begin_.size() - 1;
  unfixed_.assign(link_count, 0);
  open_share_.assign(link_count, 0.0);
  for (std::size_t i = 0; i < flow_links_.size(); ++i) {
    ++unfixed_[flow_links_[i]];
    open_share_[flow_links_[i]] += flow_shares_[i];
  }
  link_begin_.resize(link_count + 1);
  link_begin_[0] = 0;
  for (std::size_t l = 0; l < link_count; ++l) link_begin_[l + 1] = link_begin_[l] + unfixed_[l];
  fill_cursor_.assign(link_begin_.begin(), link_begin_.end() - 1);
  link_flows_.resize(flow_links_.size());
  for (std::uint32_t f = 0; f < flow_count; ++f) {
    for (std::uint32_t i = flow_begin_[f]; i < flow_begin_[f + 1]; ++i) link_flows_[fill_cursor_[flow_links_[i]]++] = f;
  }
}

void MaxMinFairSolver::push_candidate(std::uint32_t local) {
  const double share = std::max(0.0, remaining_bytes_per_s_[local]) / open_share_[local];
  heap_.push_back({share, link_id_[local], local, version_[local]});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>{});
}

// Fixes every still-open flow crossing `bottleneck` at `share` and takes
// that rate, times the flow's share there, off each link it crosses (twice
// for a link crossed twice).
void MaxMinFairSolver::fix_flows_of(std::uint32_t bottleneck, double share) {
  ++round_;
  changed_.clear();
  for (std::uint32_t i = link_begin_[bottleneck]; i < link_begin_[bottleneck + 1]; ++i) {
    const std::uint32_t f = link_flows_[i];
    if (rate_bytes_per_s_[f] >= 0.0) continue;
    rate_bytes_per_s_[f] = share;
    for (std::uint32_t j = flow_begin_[f]; j < flow_begin_[f + 1]; ++j) {
      const std::uint32_t l = flow_links_[j];
      remaining_bytes_per_s_[l] -= share * flow_shares_[j];
      open_share_[l] -= flow_shares_[j];
      --unfixed_[l];
      if (changed_stamp_[l] != round_) {
        changed_stamp_[l] = round_;
        changed_.push_back(l);
      }
    }
  }
  // A link's share never falls as flows are fixed (each fixed flow takes the
  // current minimum, at most the link's own share), so older heap entries go
  // stale only upwards; the version tells them apart.
  for (std::uint32_t l : changed_) {
    ++version_[l];
    if (unfixed_[l] > 0) push_candidate(l);
  }
}

const std::vector<double>& MaxMinFairSolver::solve(const std::vector<double>& capacity_bytes_per_s) {
  const std::size_t link_count = link_id_.size();
  remaining_bytes_per_s_.resize(link_count);
  for (std::size_t l = 0; l < link_count; ++l) {
    remaining_bytes_per_s_[l] = cap_bytes_per_s_[l] >= 0.0 ? cap_bytes_per_s_[l] : capacity_bytes_per_s.at(link_id_[l]);
  }
  index_link_flows();
  version_.assign(link_count, 0u);
  changed_stamp_.assign(link_count, 0u);
  round_ = 0;
  rate_bytes_per_s_.assign(flow_begin_.size() - 1, -1.0);
  heap_.clear();
  for (std::uint32_t l = 0; l < link_count; ++l) push_candidate(l);
  while (!heap_.empty()) {
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>{});
    const Candidate top = heap_.back();
    heap_.pop_back();
    if (top.version != version_[top.local] || unfixed_[top.local] == 0) continue;
    fix_flows_of(top.local, top.share);
  }
  return rate_bytes_per_s_;
}

std::vector<double> max_min_fair_rates(const std::vector<const std::vector<LinkId>*>& flow_links,
                                       const std::vector<double>& capacity_bytes_per_s) {
  MaxMinFairSolver solver;
  solver.clear();
  for (const auto* links : flow_links) solver.add_flow(*links);
  return solver.solve(capacity_bytes_per_s);
}

}  // namespace simctl
