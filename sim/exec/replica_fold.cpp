#include "sim/exec/replica_fold.hpp"

#include <algorithm>
#include <numeric>
#include <set>

namespace simctl {
namespace {

// Which of a program's slots its collectives and transfers name: groups used
// for data-parallel collectives only may span replicas; any other use keeps
// a group (and a peer) inside one.
struct SlotUse {
  std::vector<bool> local_group;
  std::vector<bool> spanning_group;
  std::vector<bool> peer;
};

void mark(std::vector<bool>& used, std::uint32_t slot) {
  if (slot >= used.size()) used.resize(slot + 1, false);
  used[slot] = true;
}

std::vector<SlotUse> slot_uses(const Trace& trace) {
  std::vector<SlotUse> uses(trace.programs.size());
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    for (const Op& op : trace.programs[p]) {
      if (const auto* call = std::get_if<CollectiveCall>(&op.work)) {
        mark(call->dimension == CommDimension::data ? uses[p].spanning_group : uses[p].local_group, call->group);
      } else if (const auto* transfer = std::get_if<PeerTransfer>(&op.work)) {
        mark(uses[p].peer, transfer->peer);
      }
    }
    // A slot used both ways stays inside a replica.
    auto& spanning = uses[p].spanning_group;
    for (std::size_t s = 0; s < spanning.size() && s < uses[p].local_group.size(); ++s) {
      if (uses[p].local_group[s]) spanning[s] = false;
    }
  }
  return uses;
}

constexpr std::uint32_t kNone = UINT32_MAX;

// A rank's binding of a slot, or kNone when it has no such slot.
std::uint32_t bound(const std::vector<std::uint32_t>& slots, std::uint32_t slot) {
  if (slots.empty()) return slot;
  return slot < slots.size() ? slots[slot] : kNone;
}

struct Components {
  std::vector<std::uint32_t> parent;
  explicit Components(std::size_t n) : parent(n) { std::iota(parent.begin(), parent.end(), 0U); }
  std::uint32_t root(std::uint32_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  }
  void join(std::uint32_t a, std::uint32_t b) {
    a = root(a), b = root(b);
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
  }
};

// Joins the ranks that share a transfer or a non-data group into replicas;
// false when a binding names a group or rank that does not exist.
bool join_replicas(const Trace& trace, const std::vector<SlotUse>& uses, Components& joined) {
  const auto ranks = trace.rank_count();
  for (std::uint32_t r = 0; r < ranks; ++r) {
    const RankTrace& binding = trace.ranks[r];
    const SlotUse& use = uses[binding.program];
    for (std::uint32_t s = 0; s < use.local_group.size(); ++s) {
      if (!use.local_group[s]) continue;
      const std::uint32_t g = bound(binding.groups, s);
      if (g >= trace.groups.size()) return false;
      for (std::uint32_t member : trace.groups[g]) {
        if (member >= ranks) return false;
        joined.join(r, member);
      }
    }
    for (std::uint32_t s = 0; s < use.peer.size(); ++s) {
      if (!use.peer[s]) continue;
      const std::uint32_t peer = bound(binding.peers, s);
      if (peer >= ranks) return false;
      joined.join(r, peer);
    }
  }
  return true;
}

// The node rank `r` runs on; kNoNode where its GPU is not one of the
// system's (placed_alike refuses such a rank).
int node_of_rank(const Trace& trace, const System& system, std::uint32_t r) {
  if (trace.gpu_index(r) >= system.gpus().size()) return kNoNode;
  return system.part(system.gpus()[trace.gpu_index(r)]).node;
}

// Joins the ranks that share a node: two data-parallel replicas on one node
// (TP 4 on 8 GPUs) share its links, so they replay together as one replica
// of twice the ranks. True when that joined any.
bool join_nodes(const Trace& trace, const System& system, Components& joined) {
  std::vector<std::uint32_t> first_on_node(static_cast<std::size_t>(std::max(system.num_nodes(), 0)), kNone);
  bool any = false;
  for (std::uint32_t r = 0; r < trace.rank_count(); ++r) {
    const int node = node_of_rank(trace, system, r);
    if (node == kNoNode) continue;
    std::uint32_t& first = first_on_node[static_cast<std::size_t>(node)];
    if (first == kNone) first = r;
    any = any || joined.root(first) != joined.root(r);
    joined.join(first, r);
  }
  return any;
}

class FoldBuilder {
 public:
  FoldBuilder(const Trace& trace, const System& system) : trace_(trace), system_(system), uses_(slot_uses(trace)) {}

  std::optional<ReplicaFold> build() {
    if (trace_.rank_count() < 2 || !split_replicas()) return std::nullopt;
    fold_.role.assign(trace_.groups.size(), ReplicaFold::Role::none);
    fold_.group_image.assign(trace_.groups.size(), {});
    fold_.node_image.assign(static_cast<std::size_t>(std::max(system_.num_nodes(), 0)), {});
    node_replica_.assign(fold_.node_image.size(), kNone);
    for (std::uint32_t q = 0; q < fold_.members[0].size(); ++q) {
      for (std::uint32_t j = 0; j < fold_.replicas; ++j) {
        if (!alike(fold_.members[0][q], fold_.members[j][q], j)) return std::nullopt;
      }
    }
    fold_.dp_inside_nodes = fold_.dp_inside_nodes || spanning_group_shares_a_node();
    if (!classify_local_groups() || !nodes_alike()) return std::nullopt;
    return std::move(fold_);
  }

 private:
  bool split_replicas() {
    Components joined(trace_.rank_count());
    if (!join_replicas(trace_, uses_, joined)) return false;
    fold_.dp_inside_nodes = join_nodes(trace_, system_, joined);
    std::vector<std::uint32_t> replica_of_root(trace_.rank_count(), kNone);
    fold_.replica_of.resize(trace_.rank_count());
    fold_.position_of.resize(trace_.rank_count());
    for (std::uint32_t r = 0; r < trace_.rank_count(); ++r) {
      std::uint32_t& replica = replica_of_root[joined.root(r)];
      if (replica == kNone) replica = static_cast<std::uint32_t>(fold_.members.size()), fold_.members.emplace_back();
      fold_.replica_of[r] = replica;
      fold_.position_of[r] = static_cast<std::uint32_t>(fold_.members[replica].size());
      fold_.members[replica].push_back(r);
    }
    fold_.replicas = static_cast<std::uint32_t>(fold_.members.size());
    if (fold_.replicas < 2) return false;
    return std::all_of(fold_.members.begin(), fold_.members.end(),
                       [&](const auto& m) { return m.size() == fold_.members[0].size(); });
  }

  // Rank `image` of replica `j` against its representative `rep`.
  bool alike(std::uint32_t rep, std::uint32_t image, std::uint32_t j) {
    const RankTrace& a = trace_.ranks[rep];
    const RankTrace& b = trace_.ranks[image];
    if (a.program != b.program || a.program >= uses_.size()) return false;
    if (!placed_alike(rep, image, j)) return false;
    const SlotUse& use = uses_[a.program];
    for (std::uint32_t s = 0; s < use.peer.size(); ++s) {
      if (!use.peer[s]) continue;
      const std::uint32_t p = bound(a.peers, s), q = bound(b.peers, s);
      if (fold_.replica_of[q] != j || fold_.position_of[q] != fold_.position_of[p]) return false;
    }
    for (std::uint32_t s = 0; s < use.local_group.size(); ++s) {
      if (use.local_group[s] && !local_group_alike(bound(a.groups, s), bound(b.groups, s), j)) return false;
    }
    for (std::uint32_t s = 0; s < use.spanning_group.size(); ++s) {
      if (!use.spanning_group[s]) continue;
      const std::uint32_t g = bound(a.groups, s);
      if (g >= trace_.groups.size() || bound(b.groups, s) != g || !spanning_group_alike(g)) return false;
    }
    return true;
  }

  bool placed_alike(std::uint32_t rep, std::uint32_t image, std::uint32_t j) {
    const auto& gpus = system_.gpus();
    if (trace_.gpu_index(rep) >= gpus.size() || trace_.gpu_index(image) >= gpus.size()) return false;
    const Part& a = system_.part(gpus[trace_.gpu_index(rep)]);
    const Part& b = system_.part(gpus[trace_.gpu_index(image)]);
    if (a.model != b.model || a.compute_speed != b.compute_speed || a.group != b.group || a.index != b.index) {
      return false;
    }
    if (a.node == kNoNode || b.node == kNoNode) return false;
    const auto n0 = static_cast<std::size_t>(a.node), nj = static_cast<std::size_t>(b.node);
    if (node_replica_[n0] == kNone) node_replica_[n0] = 0;
    if (node_replica_[nj] == kNone) node_replica_[nj] = j;
    if (node_replica_[n0] != 0 || node_replica_[nj] != j) return false;  // a node shared by two replicas
    auto& images = fold_.node_image[n0];
    if (images.empty()) images.assign(fold_.replicas, -1);
    if (images[j] == -1) images[j] = b.node;
    return images[j] == b.node;
  }

  bool local_group_alike(std::uint32_t g0, std::uint32_t gj, std::uint32_t j) {
    if (g0 >= trace_.groups.size() || gj >= trace_.groups.size()) return false;
    const auto& a = trace_.groups[g0];
    const auto& b = trace_.groups[gj];
    if (a.size() != b.size() || fold_.role[g0] == ReplicaFold::Role::spanning) return false;
    for (std::size_t i = 0; i < a.size(); ++i) {
      if (!fold_.represents(a[i]) || b[i] != fold_.image(a[i], j)) return false;
    }
    fold_.role[g0] = ReplicaFold::Role::imaged;  // refined by classify_local_groups
    auto& images = fold_.group_image[g0];
    if (images.empty()) images.assign(fold_.replicas, kNone);
    if (images[j] == kNone) images[j] = gj;
    return images[j] == gj;
  }

  // The same positions in every replica (one, or two where two data-parallel
  // ranks share a node), the representative's member the lowest rank at
  // each: a full replay names the lowest of members arriving at once, and a
  // position's members all arrive at once.
  bool spanning_group_alike(std::uint32_t g) {
    if (fold_.role[g] == ReplicaFold::Role::spanning) return true;
    if (fold_.role[g] != ReplicaFold::Role::none) return false;
    const auto& members = trace_.groups[g];
    if (members.size() % fold_.replicas != 0) return false;
    const std::size_t positions = fold_.members[0].size();
    std::vector<std::uint32_t> lowest_at(positions, kNone), count_at(positions, 0), per_replica(fold_.replicas, 0);
    for (std::uint32_t m : members) {
      const std::uint32_t q = fold_.position_of[m];
      lowest_at[q] = std::min(lowest_at[q], m);
      ++count_at[q];
      ++per_replica[fold_.replica_of[m]];
    }
    const auto share = static_cast<std::uint32_t>(members.size() / fold_.replicas);
    if (std::any_of(per_replica.begin(), per_replica.end(), [&](std::uint32_t n) { return n != share; })) return false;
    for (std::size_t q = 0; q < positions; ++q) {
      if (count_at[q] != 0 && (count_at[q] != fold_.replicas || !fold_.represents(lowest_at[q]))) return false;
    }
    fold_.role[g] = ReplicaFold::Role::spanning;
    fold_.spanning_share.resize(trace_.groups.size(), 0);
    fold_.spanning_share[g] = share;
    return true;
  }

  // Whether a data-parallel group holds two ranks of one node, so that its
  // ring crosses that node's own links.
  bool spanning_group_shares_a_node() const {
    for (std::uint32_t g = 0; g < trace_.groups.size(); ++g) {
      if (fold_.role[g] != ReplicaFold::Role::spanning) continue;
      std::set<int> nodes;
      for (std::uint32_t m : trace_.groups[g]) {
        const int node = node_of_rank(trace_, system_, m);
        if (node != kNoNode && !nodes.insert(node).second) return true;
      }
    }
    return false;
  }

  // A group inside one node runs for the representative alone; one across
  // nodes runs with its images, whose flows share the fabric.
  bool classify_local_groups() {
    for (std::uint32_t g = 0; g < trace_.groups.size(); ++g) {
      if (fold_.role[g] != ReplicaFold::Role::imaged) continue;
      const auto& members = trace_.groups[g];
      const int node = node_of_rank(trace_, system_, members[0]);
      const bool one_node = std::all_of(members.begin(), members.end(),
                                        [&](std::uint32_t m) { return node_of_rank(trace_, system_, m) == node; });
      // Where replicas share nodes, data-parallel flows cross a node's inside
      // links too, so the images' node-local flows must load them alike.
      if (one_node && !fold_.dp_inside_nodes) fold_.role[g] = ReplicaFold::Role::node_local;
      if (std::count(fold_.group_image[g].begin() + 1, fold_.group_image[g].end(), kNone) != 0) return false;
    }
    return true;
  }

  // Every cable touching a node, as that node's links in cable order; a
  // representative's node and its images must match link for link.
  bool nodes_alike() {
    fold_.node_links.assign(fold_.node_image.size(), {});
    fold_.link_inside.assign(fold_.node_image.size(), {});
    for (std::uint32_t c = 0; c < system_.num_cables(); ++c) {
      const Cable& cable = system_.cable(c);
      const int a = system_.part(cable.a).node, b = system_.part(cable.b).node;
      auto add = [&](int node, bool inside) {
        auto n = static_cast<std::size_t>(node);
        for (LinkId l : {2 * c, 2 * c + 1}) fold_.node_links[n].push_back(l), fold_.link_inside[n].push_back(inside);
      };
      if (a != kNoNode) add(a, a == b);
      if (b != kNoNode && b != a) add(b, false);
    }
    const std::vector<Bandwidth> capacity = system_.link_capacities();
    for (std::size_t n0 = 0; n0 < fold_.node_image.size(); ++n0) {
      for (const int nj : fold_.node_image[n0]) {
        if (nj < 0) return false;
        const auto& a = fold_.node_links[n0];
        const auto& b = fold_.node_links[static_cast<std::size_t>(nj)];
        if (a.size() != b.size() || fold_.link_inside[n0] != fold_.link_inside[static_cast<std::size_t>(nj)]) {
          return false;
        }
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (capacity[a[i]] != capacity[b[i]] || system_.link_spec(a[i]).latency != system_.link_spec(b[i]).latency) {
            return false;
          }
        }
      }
    }
    return true;
  }

  const Trace& trace_;
  const System& system_;
  std::vector<SlotUse> uses_;
  std::vector<std::uint32_t> node_replica_;
  ReplicaFold fold_;
};

}  // namespace

std::optional<ReplicaFold> fold_replicas(const Trace& trace, const System& system) {
  return FoldBuilder(trace, system).build();
}

}  // namespace simctl
