#include "workloads/rank_ops.hpp"

#include <algorithm>

namespace simctl {

OpIndex RankOps::compute(std::string name, OpPhase phase, const ComputeWork& work, std::vector<OpIndex> extra_deps) {
  std::vector<OpIndex> deps = deps_on_last_compute();
  deps.insert(deps.end(), extra_deps.begin(), extra_deps.end());
  std::vector<Wait> still_waiting;
  for (const Wait& w : waits_) {
    if (w.remaining == 0) {
      deps.push_back(w.op);
    } else {
      still_waiting.push_back({w.op, w.remaining - 1});
    }
  }
  waits_ = std::move(still_waiting);
  ops_.push_back(Op{std::move(name), phase, Stream::compute, std::move(deps), work});
  last_compute_ = static_cast<OpIndex>(ops_.size() - 1);
  return *last_compute_;
}

OpIndex RankOps::other(Op op, std::optional<int> consumer_offset) {
  ops_.push_back(std::move(op));
  const auto index = static_cast<OpIndex>(ops_.size() - 1);
  if (consumer_offset) waits_.push_back({index, *consumer_offset});
  return index;
}

std::vector<OpIndex> RankOps::deps_on_last_compute() const {
  return last_compute_ ? std::vector<OpIndex>{*last_compute_} : std::vector<OpIndex>{};
}

std::uint32_t GroupTable::id(const std::vector<std::uint32_t>& members, std::uint32_t communicator) {
  Key key{communicator, members};
  auto at = std::lower_bound(index_.begin(), index_.end(), key,
                             [](const auto& entry, const Key& k) { return entry.first < k; });
  if (at != index_.end() && at->first == key) return at->second;
  const auto id = static_cast<std::uint32_t>(groups_.size());
  groups_.push_back(members);
  index_.insert(at, {std::move(key), id});
  return id;
}

}  // namespace simctl
