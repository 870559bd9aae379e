#include "models/network/mesh_rings.hpp"

#include <algorithm>
#include <cstdint>
#include <limits>

namespace simctl {
namespace {

// Search steps before the best set so far is taken. n = 8 needs 1,546, n = 16
// 20,839; n = 6, which has no full set, would search about a million steps to
// prove it and settles for the best it has.
constexpr std::uint64_t kSearchSteps = 200'000;

// Depth-first over cycles, then over each cycle's next hop, trying hops in
// order of their distance round the member order (so the first cycle is the
// member order itself where its hops have room). A hop i -> j may be taken
// by capacity[i * n + j] cycles; the search ends at `target` cycles.
class RingSearch {
 public:
  RingSearch(std::size_t n, std::vector<int> capacity, std::size_t target)
      : n_(n), left_(std::move(capacity)), target_(target) {}

  std::vector<std::vector<std::size_t>> run() {
    if (target_ == 0) return {};
    std::vector<std::size_t> path{0};
    std::vector<bool> visited(n_, false);
    visited[0] = true;
    extend(path, visited);
    return best_;
  }

 private:
  int& left(std::size_t from, std::size_t to) { return left_[from * n_ + to]; }

  // True when the search is over: every ring found, or the budget spent.
  bool extend(std::vector<std::size_t>& path, std::vector<bool>& visited) {
    if (++steps_ > kSearchSteps) return true;
    const std::size_t last = path.back();
    if (path.size() == n_) return close(path);
    for (std::size_t d = 1; d < n_; ++d) {
      const std::size_t next = (last + d) % n_;
      if (visited[next] || left(last, next) <= 0) continue;
      --left(last, next);
      visited[next] = true;
      path.push_back(next);
      if (extend(path, visited)) return true;
      path.pop_back();
      ++left(last, next);
      visited[next] = false;
    }
    return false;
  }

  bool close(std::vector<std::size_t>& path) {
    const std::size_t last = path.back();
    if (left(last, 0) <= 0) return false;
    --left(last, 0);
    cycles_.push_back(path);
    if (cycles_.size() > best_.size()) best_ = cycles_;
    if (cycles_.size() == target_) return true;
    std::vector<std::size_t> next_path{0};
    std::vector<bool> visited(n_, false);
    visited[0] = true;
    if (extend(next_path, visited)) return true;
    cycles_.pop_back();
    ++left(last, 0);
    return false;
  }

  std::size_t n_;
  std::vector<int> left_;  // [from * n + to]: how many more rings may take that hop
  std::size_t target_;
  std::vector<std::vector<std::size_t>> cycles_, best_;
  std::uint64_t steps_ = 0;
};

// Every ordered pair of distinct members once: the complete digraph.
std::vector<int> full_mesh_capacity(std::size_t n) {
  std::vector<int> capacity(n * n, 1);
  for (std::size_t i = 0; i < n; ++i) capacity[i * n + i] = 0;
  return capacity;
}

std::vector<std::vector<EndpointId>> as_members(const std::vector<std::vector<std::size_t>>& cycles,
                                                const std::vector<EndpointId>& members) {
  std::vector<std::vector<EndpointId>> rings;
  for (const auto& cycle : cycles) {
    std::vector<EndpointId>& ring = rings.emplace_back();
    for (std::size_t i : cycle) ring.push_back(members[i]);
  }
  return rings;
}

// The most rings the hops' capacities allow: a member takes part in every
// ring, so none can be in more than it has hops out, or in.
std::size_t ring_bound(std::size_t n, const std::vector<int>& capacity) {
  std::size_t bound = std::numeric_limits<std::size_t>::max();
  for (std::size_t i = 0; i < n; ++i) {
    int out = 0, in = 0;
    for (std::size_t j = 0; j < n; ++j) {
      out += capacity[i * n + j];
      in += capacity[j * n + i];
    }
    bound = std::min(bound, static_cast<std::size_t>(std::max(0, std::min(out, in))));
  }
  return bound;
}

}  // namespace

// A full mesh is the capacity search with every ordered pair once; its
// bound is n - 1 rings.
std::vector<std::vector<EndpointId>> mesh_rings(const std::vector<EndpointId>& members) {
  if (members.size() < 2) return {members};
  return link_rings(members, full_mesh_capacity(members.size()));
}

std::size_t mesh_ring_count(std::size_t n) {
  return n < 2 ? 1 : RingSearch(n, full_mesh_capacity(n), n - 1).run().size();
}

std::vector<std::vector<EndpointId>> link_rings(const std::vector<EndpointId>& members,
                                                const std::vector<int>& capacity) {
  const std::size_t n = members.size();
  if (n < 2 || capacity.size() != n * n) return {};
  return as_members(RingSearch(n, capacity, ring_bound(n, capacity)).run(), members);
}

std::vector<int> mesh_path_offsets(int m) {
  if (m < 2 || m % 2 != 0) return {};
  std::vector<int> offsets{0};
  for (int j = 1; j < m; ++j) offsets.push_back(j % 2 == 1 ? (j + 1) / 2 : m - j / 2);
  return offsets;
}

}  // namespace simctl
