#include "models/network/mesh_rings.hpp"

#include <cstdint>

namespace simctl {
namespace {

// Search steps before the best set so far is taken. n = 8 needs 1,546, n = 16
// 20,839; n = 6, which has no full set, would search about a million steps to
// prove it and settles for the best it has.
constexpr std::uint64_t kSearchSteps = 200'000;

// Depth-first over cycles, then over each cycle's next hop, trying hops in
// order of their distance round the member order (so the first cycle is the
// member order itself).
class RingSearch {
 public:
  explicit RingSearch(std::size_t n) : n_(n), used_(n * n, 0) {
    for (std::size_t i = 0; i < n; ++i) used_[i * n + i] = 1;
  }

  std::vector<std::vector<std::size_t>> run() {
    std::vector<std::size_t> path{0};
    std::vector<bool> visited(n_, false);
    visited[0] = true;
    extend(path, visited);
    return best_;
  }

 private:
  char& used(std::size_t from, std::size_t to) { return used_[from * n_ + to]; }

  // True when the search is over: every ring found, or the budget spent.
  bool extend(std::vector<std::size_t>& path, std::vector<bool>& visited) {
    if (++steps_ > kSearchSteps) return true;
    const std::size_t last = path.back();
    if (path.size() == n_) return close(path);
    for (std::size_t d = 1; d < n_; ++d) {
      const std::size_t next = (last + d) % n_;
      if (visited[next] || used(last, next)) continue;
      used(last, next) = 1;
      visited[next] = true;
      path.push_back(next);
      if (extend(path, visited)) return true;
      path.pop_back();
      used(last, next) = 0;
      visited[next] = false;
    }
    return false;
  }

  bool close(std::vector<std::size_t>& path) {
    const std::size_t last = path.back();
    if (used(last, 0)) return false;
    used(last, 0) = 1;
    cycles_.push_back(path);
    if (cycles_.size() > best_.size()) best_ = cycles_;
    if (cycles_.size() + 1 == n_) return true;
    std::vector<std::size_t> next_path{0};
    std::vector<bool> visited(n_, false);
    visited[0] = true;
    if (extend(next_path, visited)) return true;
    cycles_.pop_back();
    used(last, 0) = 0;
    return false;
  }

  std::size_t n_;
  std::vector<char> used_;  // [from * n + to]: a ring already takes that pair (char: bound by reference)
  std::vector<std::vector<std::size_t>> cycles_, best_;
  std::uint64_t steps_ = 0;
};

}  // namespace

std::vector<std::vector<EndpointId>> mesh_rings(const std::vector<EndpointId>& members) {
  if (members.size() < 2) return {members};
  std::vector<std::vector<EndpointId>> rings;
  for (const auto& cycle : RingSearch(members.size()).run()) {
    std::vector<EndpointId>& ring = rings.emplace_back();
    for (std::size_t i : cycle) ring.push_back(members[i]);
  }
  return rings;
}

std::size_t mesh_ring_count(std::size_t n) { return n < 2 ? 1 : RingSearch(n).run().size(); }

std::vector<int> mesh_path_offsets(int m) {
  if (m < 2 || m % 2 != 0) return {};
  std::vector<int> offsets{0};
  for (int j = 1; j < m; ++j) offsets.push_back(j % 2 == 1 ? (j + 1) / 2 : m - j / 2);
  return offsets;
}

}  // namespace simctl
