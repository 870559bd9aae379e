#include "sim/topology/fat_tree.hpp"

#include <algorithm>

namespace simctl {
namespace {

std::vector<EndpointId> add_switches(System& system, const std::string& group, std::size_t count) {
  std::vector<EndpointId> ids;
  for (std::size_t i = 0; i < count; ++i) {
    Part part{PartKind::network_switch, group + std::to_string(i), "", kNoNode, group, static_cast<int>(i), 0};
    try {
      ids.push_back(system.add_part(std::move(part)));
    } catch (const std::invalid_argument& e) {
      throw FabricError("kind", std::string(e.what()) + "; the fabric names its switches " + group +
                                    "<i>, so rename the part that clashes");
    }
  }
  return ids;
}

std::string count_text(std::size_t n, const char* what) { return std::to_string(n) + " " + what; }

// Which spines (0-based, within a pod) each leaf's uplinks go to: 0..u-1.
std::vector<int> uplinks_of(const std::vector<std::vector<EndpointId>>& leaves, double oversubscription) {
  std::vector<int> out;
  for (const auto& leaf : leaves) out.push_back(leaf_uplinks(static_cast<int>(leaf.size()), oversubscription));
  return out;
}

struct Pod {
  std::size_t first_leaf;
  std::size_t leaves;
};

class FatTreeBuilder {
 public:
  FatTreeBuilder(System& system, const FabricSpec& spec, const std::function<Bandwidth(EndpointId)>& nic_rate)
      : system_(system), spec_(spec), nic_rate_(nic_rate) {}

  void build(const std::vector<std::vector<EndpointId>>& nics_by_node) {
    build_switches(nics_by_node);
    if (spec_.routing == FabricRouting::adaptive) system_.set_fabric_bundles(std::move(bundles_));
  }

 private:
  void build_switches(const std::vector<std::vector<EndpointId>>& nics_by_node) {
    const int down = leaf_down_ports(spec_.radix, spec_.oversubscription, spec_.tiers);
    const auto leaves = assign_leaves(nics_by_node, spec_.rail_optimised, down);
    check_size(leaves, down);
    leaf_ids_ = add_switches(system_, "leaf", leaves.size());
    for (std::size_t j = 0; j < leaves.size(); ++j) cable_nics(leaves[j], leaf_ids_[j]);
    if (spec_.tiers == 1 || leaves.size() == 1) return;  // one leaf: nothing to climb to
    uplinks_ = uplinks_of(leaves, spec_.oversubscription);
    if (spec_.tiers == 2) {
      build_pods({Pod{0, leaves.size()}}, false);
      return;
    }
    const std::size_t per_pod = static_cast<std::size_t>(spec_.radix / 2);
    std::vector<Pod> pods;
    for (std::size_t first = 0; first < leaves.size(); first += per_pod) {
      pods.push_back(Pod{first, std::min(per_pod, leaves.size() - first)});
    }
    build_pods(pods, pods.size() > 1);
  }

  void check_size(const std::vector<std::vector<EndpointId>>& leaves, int down) const {
    const auto k = static_cast<std::size_t>(spec_.radix);
    std::size_t limit = k;  // leaves a fabric of this radix can join
    if (spec_.tiers == 1) limit = 1;
    if (spec_.tiers == 3) limit = k * (k / 2);
    if (leaves.size() <= limit) return;
    std::size_t nics = 0;
    for (const auto& leaf : leaves) nics += leaf.size();
    throw FabricError(
        "radix", "radix " + std::to_string(k) + " is too small for " + count_text(nics, "NICs") + ": " +
                     std::to_string(spec_.tiers) + " tier(s) of " + std::to_string(k) + "-port switches join at most " +
                     count_text(limit, "leaves") + " of " + std::to_string(down) + " NIC ports, and these NICs need " +
                     count_text(leaves.size(), "leaves") + (spec_.rail_optimised ? " (rail-optimised)" : "") +
                     "; raise the radix" + (spec_.tiers < 3 ? " or add a tier" : " or use fewer nodes"));
  }

  std::uint32_t cable(EndpointId a, EndpointId b, Bandwidth rate) {
    LinkSpec spec = spec_.link;
    spec.bandwidth = std::min(spec.bandwidth, rate);
    return system_.add_cable(a, b, spec);
  }

  // The pool of cables' links going up (a -> b, as cabled) or down; it can
  // never limit a flow when it carries at least `feeding` bytes/s, all that
  // the links into it (or out of it) can carry.
  std::uint32_t add_bundle(const std::string& name, const std::vector<std::uint32_t>& cables, bool up, double feeding) {
    LinkBundle bundle{name, {}, system_.cable(cables.front()).spec, 0, 0};
    bundle.spec.bandwidth = Bandwidth{};
    for (std::uint32_t c : cables) {
      bundle.members.push_back(up ? 2 * c : 2 * c + 1);
      bundle.spec.bandwidth.bytes_per_s += system_.cable(c).spec.bandwidth.bytes_per_s;
    }
    bundle.source = system_.link_source(bundle.members.front());
    bundle.target = system_.link_target(bundle.members.front());
    bundle.never_binding = bundle.spec.bandwidth.bytes_per_s >= feeding;
    return bundles_.add(std::move(bundle));
  }

  // A leaf's or a pod's pools, both ways (up and down are fed alike).
  std::pair<std::uint32_t, std::uint32_t> add_bundles(const std::string& name, const std::vector<std::uint32_t>& cables,
                                                      double feeding) {
    return {add_bundle(name + " uplinks", cables, true, feeding),
            add_bundle(name + " downlinks", cables, false, feeding)};
  }

  void cable_nics(const std::vector<EndpointId>& nics, EndpointId leaf) {
    leaf_feeding_.push_back(0.0);
    for (EndpointId nic : nics)
      leaf_feeding_.back() += system_.cable(cable(nic, leaf, nic_rate_(nic))).spec.bandwidth.bytes_per_s;
  }

  // Spines of each pod, and (when `with_cores`) the cores above them.
  void build_pods(const std::vector<Pod>& pods, bool with_cores) {
    std::vector<std::vector<int>> served;  // per pod, per spine: leaves it serves
    std::size_t spine_count = 0;
    for (const Pod& pod : pods) {
      const int spines =
          *std::max_element(uplinks_.begin() + pod.first_leaf, uplinks_.begin() + pod.first_leaf + pod.leaves);
      served.emplace_back(spines, 0);
      for (std::size_t j = pod.first_leaf; j < pod.first_leaf + pod.leaves; ++j) {
        for (int s = 0; s < uplinks_[j]; ++s) ++served.back()[s];
      }
      spine_count += spines;
    }
    const auto spine_ids = add_switches(system_, "spine", spine_count);
    std::size_t next = 0;
    std::vector<std::vector<EndpointId>> pod_spines;
    pod_feeding_.assign(pods.size(), 0.0);
    for (std::size_t p = 0; p < pods.size(); ++p) {
      pod_spines.emplace_back(spine_ids.begin() + next, spine_ids.begin() + next + served[p].size());
      next += served[p].size();
      for (std::size_t j = pods[p].first_leaf; j < pods[p].first_leaf + pods[p].leaves; ++j) {
        std::vector<std::uint32_t> uplinks;
        for (int s = 0; s < uplinks_[j]; ++s) {
          uplinks.push_back(cable(leaf_ids_[j], pod_spines[p][s], spec_.link.bandwidth));
        }
        const auto [up, down] = add_bundles(system_.part(leaf_ids_[j]).name, uplinks, leaf_feeding_[j]);
        pod_feeding_[p] += std::min(leaf_feeding_[j], bundles_[up].spec.bandwidth.bytes_per_s);
        bundles_.set_leaf(leaf_ids_[j], up, down, static_cast<std::uint32_t>(p));
      }
    }
    if (with_cores) build_cores(served, pod_spines);
  }

  // Core group s sits above every pod's spine s; that spine has one uplink
  // per leaf it serves, to cores 0.. of its group.
  void build_cores(const std::vector<std::vector<int>>& served, const std::vector<std::vector<EndpointId>>& spines) {
    std::vector<int> group_size;
    for (const auto& pod : served) {
      if (group_size.size() < pod.size()) group_size.resize(pod.size(), 0);
      for (std::size_t s = 0; s < pod.size(); ++s) group_size[s] = std::max(group_size[s], pod[s]);
    }
    std::size_t total = 0;
    std::vector<std::size_t> group_first;
    for (int size : group_size) {
      group_first.push_back(total);
      total += static_cast<std::size_t>(size);
    }
    const auto cores = add_switches(system_, "core", total);
    for (std::size_t p = 0; p < served.size(); ++p) {
      std::vector<std::uint32_t> core_links;
      for (std::size_t s = 0; s < served[p].size(); ++s) {
        for (int c = 0; c < served[p][s]; ++c) {
          core_links.push_back(cable(spines[p][s], cores[group_first[s] + c], spec_.link.bandwidth));
        }
      }
      const auto [up, down] = add_bundles("pod" + std::to_string(p) + " core", core_links, pod_feeding_[p]);
      bundles_.set_pod(static_cast<std::uint32_t>(p), up, down);
    }
  }

  System& system_;
  const FabricSpec& spec_;
  const std::function<Bandwidth(EndpointId)>& nic_rate_;
  std::vector<EndpointId> leaf_ids_;
  std::vector<int> uplinks_;
  FabricBundles bundles_;             // handed to the system when the fabric routes adaptively
  std::vector<double> leaf_feeding_;  // per leaf: its NIC cables' rate, bytes/s
  std::vector<double> pod_feeding_;   // per pod: what its leaves can send up, bytes/s
};

}  // namespace

void build_fat_tree(System& system, const FabricSpec& spec, const std::vector<std::vector<EndpointId>>& nics_by_node,
                    const std::function<Bandwidth(EndpointId)>& nic_rate) {
  FatTreeBuilder(system, spec, nic_rate).build(nics_by_node);
}

}  // namespace simctl
