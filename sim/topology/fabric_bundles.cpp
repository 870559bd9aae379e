#include "sim/topology/fabric_bundles.hpp"

namespace simctl {

std::uint32_t FabricBundles::add(LinkBundle bundle) {
  bundles_.push_back(std::move(bundle));
  return static_cast<std::uint32_t>(bundles_.size() - 1);
}

void FabricBundles::set_leaf(EndpointId leaf, std::uint32_t up, std::uint32_t down, std::uint32_t pod) {
  leaves_[leaf] = Leaf{up, down, pod};
}

void FabricBundles::set_pod(std::uint32_t pod, std::uint32_t up, std::uint32_t down) {
  if (pods_.size() <= pod) pods_.resize(pod + 1);
  pods_[pod] = Pod{up, down};
}

std::optional<std::vector<std::uint32_t>> FabricBundles::between(EndpointId from, EndpointId to) const {
  const auto a = leaves_.find(from), b = leaves_.find(to);
  if (a == leaves_.end() || b == leaves_.end() || from == to) return std::nullopt;
  if (a->second.pod == b->second.pod) return std::vector<std::uint32_t>{a->second.up, b->second.down};
  if (a->second.pod >= pods_.size() || b->second.pod >= pods_.size()) return std::nullopt;
  const Pod& p = pods_[a->second.pod];
  const Pod& q = pods_[b->second.pod];
  if (p.up == kNone || q.down == kNone) return std::nullopt;
  return std::vector<std::uint32_t>{a->second.up, p.up, q.down, b->second.down};
}

}  // namespace simctl
