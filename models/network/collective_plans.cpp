#include "models/network/collective_plans.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <string>

#include "models/network/collective_group.hpp"
#include "models/network/node_trees.hpp"

namespace simctl {

namespace {

[[noreturn]] void unsupported(std::string_view algorithm, CollectiveOp op) {
  throw std::invalid_argument(std::string(algorithm) + " collective: " + std::string(to_string(op)) +
                              " is not supported");
}

TimePs sync_between(const PlanInputs& in, EndpointId a, EndpointId b) {
  return crosses_nodes(in.topology, a, b) ? in.protocol.network_step_latency : in.protocol.nvlink_step_latency;
}

Transfer send(const PlanInputs& in, EndpointId from, EndpointId to, double payload, double extra_efficiency = 1.0) {
  return Transfer{from, to, payload / (in.protocol.efficiency * extra_efficiency), {}, -1, sync_between(in, from, to)};
}

int chunk_count(double bytes, double chunk_bytes, int max_chunks) {
  const double wanted = std::ceil(bytes / chunk_bytes);
  return static_cast<int>(std::clamp(wanted, 1.0, static_cast<double>(max_chunks)));
}

// Parent (index into `members`, -1 for the root) of every member in one tree:
// `across` over nodes (NCCL's double binary tree, node_trees.hpp), a chain
// inside each node that starts at local rank `head` (-1: at the first member,
// or the last when mirrored), so the tree crosses between nodes on that
// rank's rail.
std::vector<int> tree_parents(const GroupShape& shape, const std::vector<EndpointId>& members, const NodeTree& across,
                              bool mirrored, int head) {
  std::vector<std::vector<int>> chains;  // per node: member indices in chain order
  for (const auto& node : shape.nodes) {
    std::vector<int> chain;
    for (EndpointId e : node) {
      chain.push_back(static_cast<int>(std::find(members.begin(), members.end(), e) - members.begin()));
    }
    if (mirrored) std::reverse(chain.begin(), chain.end());
    if (head >= 0) {
      const int first = static_cast<int>(
          std::find(members.begin(), members.end(), node[static_cast<std::size_t>(head) % node.size()]) -
          members.begin());
      std::rotate(chain.begin(), std::find(chain.begin(), chain.end(), first), chain.end());
    }
    chains.push_back(std::move(chain));
  }
  std::vector<int> parent(members.size(), -1);
  for (std::size_t k = 0; k < chains.size(); ++k) {
    const auto& chain = chains[k];
    for (std::size_t j = 1; j < chain.size(); ++j) parent[static_cast<std::size_t>(chain[j])] = chain[j - 1];
    const int up = across.parent[k];
    if (up >= 0) parent[static_cast<std::size_t>(chain.front())] = chains[static_cast<std::size_t>(up)].front();
  }
  return parent;
}

std::vector<int> depths(const std::vector<int>& parent) {
  std::vector<int> depth(parent.size(), 0);
  for (std::size_t i = 0; i < parent.size(); ++i) {
    for (int p = parent[i]; p >= 0; p = parent[static_cast<std::size_t>(p)]) ++depth[i];
  }
  return depth;
}

// What a tree's transfers carry, in how many chunks, how many of them the
// plan holds (all, or one as the pipelined pattern), and the payload rate a
// send between nodes is capped at (infinite: none).
struct TreeChunking {
  double half_bytes = 0.0;
  int chunks = 1;
  int emitted = 1;
  double network_payload_cap = std::numeric_limits<double>::infinity();
};

void add_tree(const PlanInputs& in, const std::vector<int>& parent, const TreeChunking& how, TransferPlan& plan) {
  const auto& m = in.request.members;
  const std::size_t n = m.size();
  const std::vector<int> depth = depths(parent);
  std::vector<std::size_t> deepest_first(n);
  for (std::size_t i = 0; i < n; ++i) deepest_first[i] = i;
  std::stable_sort(deepest_first.begin(), deepest_first.end(),
                   [&](std::size_t a, std::size_t b) { return depth[a] > depth[b]; });
  const int chunks = how.emitted;
  const double chunk = how.half_bytes / how.chunks;
  auto tree_send = [&](EndpointId from, EndpointId to) {
    Transfer t = send(in, from, to, chunk, in.tuning.tree_efficiency);
    if (crosses_nodes(in.topology, from, to))
      t.max_bytes_per_s = how.network_payload_cap / (in.protocol.efficiency * in.tuning.tree_efficiency);
    return t;
  };
  std::vector<int> up_lane(n), down_lane(n);
  for (std::size_t i = 0; i < n; ++i) up_lane[i] = plan.new_lane(), down_lane[i] = plan.new_lane();
  // up[c][i]: i's chunk c to its parent; down[c][i]: the parent's chunk c to i.
  std::vector<std::vector<std::uint32_t>> up(static_cast<std::size_t>(chunks), std::vector<std::uint32_t>(n));
  auto down = up;
  for (int c = 0; c < chunks; ++c) {
    for (std::size_t i : deepest_first) {
      if (parent[i] < 0) continue;
      Transfer t = tree_send(m[i], m[static_cast<std::size_t>(parent[i])]);
      for (std::size_t k = 0; k < n; ++k) {
        if (parent[k] == static_cast<int>(i)) t.after.push_back(up[static_cast<std::size_t>(c)][k]);
      }
      t.lane = up_lane[i];
      up[static_cast<std::size_t>(c)][i] = plan.add(std::move(t));
    }
  }
  for (int c = 0; c < chunks; ++c) {
    for (auto it = deepest_first.rbegin(); it != deepest_first.rend(); ++it) {
      const std::size_t i = *it;
      if (parent[i] < 0) continue;
      const auto p = static_cast<std::size_t>(parent[i]);
      Transfer t = tree_send(m[p], m[i]);
      if (parent[p] < 0) {
        // The root has the full sum of chunk c once all its children's reductions are in.
        for (std::size_t k = 0; k < n; ++k) {
          if (parent[k] == static_cast<int>(p)) t.after.push_back(up[static_cast<std::size_t>(c)][k]);
        }
      } else {
        t.after.push_back(down[static_cast<std::size_t>(c)][p]);
      }
      t.lane = down_lane[i];
      down[static_cast<std::size_t>(c)][i] = plan.add(std::move(t));
    }
  }
}

// As NCCL's channels: across nodes one pair of trees per local rank, each
// entering and leaving its node through that rank's NIC, so every NIC
// carries an equal share.
int tree_channels(const GroupShape& shape) { return shape.node_count() > 1 && shape.uniform ? shape.per_node() : 1; }

// The payload rate each send between nodes is capped at: NCCL's tree
// channels (one tree pair per local rank) add at most tree_channel_rate of
// bus bandwidth each (the slowest member's), so the collective takes at
// least 2(n-1)/n x bytes / (channels x rate); each such send carries half a
// channel's share of the buffer, so it may move at most rate / (2 x
// 2(n-1)/n). Infinite on one node or where no rate is listed.
double tree_network_payload_cap(const PlanInputs& in, const GroupShape& shape) {
  const int nodes = static_cast<int>(shape.node_count());
  if (nodes < 2) return std::numeric_limits<double>::infinity();
  const double rate = slowest_member(in.request.members, in.topology, [&](const MemberPlace& place) {
    return in.tuning.tree_channel_rate(place.architecture, nodes);
  });
  const double n = static_cast<double>(in.request.members.size());
  const double busbw_per_byte = 2.0 * (n - 1.0) / n;
  return rate / (2.0 * busbw_per_byte);
}

// What each tree carries: half of its channel's share of the buffer.
double tree_half_bytes(const PlanInputs& in, const GroupShape& shape) {
  return in.request.bytes / 2.0 / tree_channels(shape);
}

// The trees of every channel in `chunks` chunks, of which the plan holds the
// first `emitted`.
TransferPlan build_tree(const PlanInputs& in, const GroupShape& shape, int chunks, int emitted) {
  const int channels = tree_channels(shape);
  const TreeChunking how{tree_half_bytes(in, shape), chunks, emitted, tree_network_payload_cap(in, shape)};
  TransferPlan plan;
  const std::array<NodeTree, 2> across = nccl_double_tree(shape.node_count());
  for (int channel = 0; channel < channels; ++channel) {
    const int head = channels > 1 ? channel : -1;
    for (int t = 0; t < 2; ++t) {
      add_tree(in, tree_parents(shape, in.request.members, across[static_cast<std::size_t>(t)], t == 1, head), how,
               plan);
    }
  }
  return plan;
}

}  // namespace

TransferPlan plan_tree(const PlanInputs& in) {
  if (in.request.op != CollectiveOp::all_reduce) unsupported("tree", in.request.op);
  const GroupShape shape = shape_of(in.request.members, in.topology);
  const int chunks = chunk_count(tree_half_bytes(in, shape), in.tuning.chunk_bytes, in.tuning.max_chunks_per_step);
  return build_tree(in, shape, chunks, chunks);
}

int tree_chunks(const PlanInputs& in) {
  const double half = tree_half_bytes(in, shape_of(in.request.members, in.topology));
  return static_cast<int>(std::clamp(std::ceil(half / in.tuning.tree_chunk_bytes), 1.0, 1e9));
}

TransferPlan plan_tree_chunk(const PlanInputs& in) {
  if (in.request.op != CollectiveOp::all_reduce) unsupported("tree", in.request.op);
  return build_tree(in, shape_of(in.request.members, in.topology), tree_chunks(in), 1);
}

TransferPlan plan_halving_doubling(const PlanInputs& in) {
  const auto& m = in.request.members;
  const std::size_t n = m.size();
  const CollectiveOp op = in.request.op;
  if (!std::has_single_bit(n)) throw std::invalid_argument("halving_doubling collective needs a power-of-two group");
  const bool halve = op == CollectiveOp::all_reduce || op == CollectiveOp::reduce_scatter;
  const bool double_up = op == CollectiveOp::all_reduce || op == CollectiveOp::all_gather;
  if (!halve && !double_up) unsupported("halving_doubling", op);
  TransferPlan plan;
  // last[r]: the transfer that last arrived at rank r.
  std::vector<std::int64_t> last(n, -1);
  auto step = [&](std::size_t distance, double bytes) {
    std::vector<std::int64_t> next(n);
    for (std::size_t r = 0; r < n; ++r) {
      const std::size_t partner = r ^ distance;
      Transfer t = send(in, m[r], m[partner], bytes);
      if (last[r] >= 0) t.after.push_back(static_cast<std::uint32_t>(last[r]));
      next[partner] = plan.add(std::move(t));
    }
    last = next;
  };
  const int levels = std::countr_zero(n);
  const double total = in.request.bytes;
  if (halve) {
    for (int k = 0; k < levels; ++k) step(n >> (k + 1), total / static_cast<double>(std::size_t{2} << k));
  }
  if (double_up) {
    for (int k = 0; k < levels; ++k) step(std::size_t{1} << k, total / static_cast<double>(n) * (1 << k));
  }
  return plan;
}

TransferPlan plan_direct(const PlanInputs& in) {
  const auto& m = in.request.members;
  const std::size_t n = m.size();
  const double share = in.request.bytes / static_cast<double>(n);
  TransferPlan plan;
  auto all_pairs = [&](double bytes, const std::vector<std::vector<std::uint32_t>>* before) {
    std::vector<std::vector<std::uint32_t>> into(n);
    for (std::size_t r = 0; r < n; ++r) {
      for (std::size_t s = 0; s < n; ++s) {
        if (r == s) continue;
        Transfer t = send(in, m[r], m[s], bytes);
        if (before) t.after = (*before)[r];
        into[s].push_back(plan.add(std::move(t)));
      }
    }
    return into;
  };
  switch (in.request.op) {
    case CollectiveOp::all_to_all:
    case CollectiveOp::all_gather:
    case CollectiveOp::reduce_scatter: all_pairs(share, nullptr); break;
    case CollectiveOp::all_reduce: {
      const auto reduced = all_pairs(share, nullptr);
      all_pairs(share, &reduced);
      break;
    }
    case CollectiveOp::broadcast:
    case CollectiveOp::reduce: return plan_master(in);
  }
  return plan;
}

TransferPlan plan_master(const PlanInputs& in) {
  const auto& m = in.request.members;
  const double bytes = in.request.bytes;
  const double share = bytes / static_cast<double>(m.size());
  TransferPlan plan;
  auto to_root = [&](double b) {
    std::vector<std::uint32_t> ids;
    for (std::size_t r = 1; r < m.size(); ++r) ids.push_back(plan.add(send(in, m[r], m[0], b)));
    return ids;
  };
  auto from_root = [&](double b, const std::vector<std::uint32_t>& after) {
    for (std::size_t r = 1; r < m.size(); ++r) {
      Transfer t = send(in, m[0], m[r], b);
      t.after = after;
      plan.add(std::move(t));
    }
  };
  switch (in.request.op) {
    case CollectiveOp::broadcast: from_root(bytes, {}); break;
    case CollectiveOp::reduce: to_root(bytes); break;
    case CollectiveOp::all_reduce: from_root(bytes, to_root(bytes)); break;
    case CollectiveOp::reduce_scatter: from_root(share, {}); break;
    case CollectiveOp::all_gather: to_root(share); break;
    case CollectiveOp::all_to_all: unsupported("master", in.request.op);
  }
  return plan;
}

TransferPlan plan_in_switch(const std::vector<EndpointId>& members, EndpointId reduction_switch, double up_bytes,
                            double down_bytes, const InSwitchTuning& tuning) {
  return plan_in_fabric(ReductionTree::star(members, reduction_switch), up_bytes, down_bytes, tuning);
}

TransferPlan plan_in_fabric(const ReductionTree& tree, double up_bytes, double down_bytes,
                            const InSwitchTuning& tuning) {
  // At least two chunks, so the down phase of the first overlaps the up phase
  // of the second, as NVLS overlaps its reduce and multicast; at most 1024.
  const int chunks = static_cast<int>(std::clamp(std::ceil(up_bytes / tuning.chunk_bytes), 2.0, 1024.0));
  // Up: deepest edges first, so a switch's inputs exist before its output;
  // down: the root's edges first. Stable, so a star keeps member order.
  std::vector<std::size_t> up_order(tree.edges.size()), down_order;
  for (std::size_t e = 0; e < up_order.size(); ++e) up_order[e] = e;
  down_order = up_order;
  auto depth = [&](std::size_t e) { return tree.edges[e].depth; };
  std::stable_sort(up_order.begin(), up_order.end(), [&](auto a, auto b) { return depth(a) > depth(b); });
  std::stable_sort(down_order.begin(), down_order.end(), [&](auto a, auto b) { return depth(a) < depth(b); });
  TransferPlan plan;
  std::vector<int> up_lane, down_lane;
  for (std::size_t e = 0; e < tree.edges.size(); ++e)
    up_lane.push_back(plan.new_lane()), down_lane.push_back(plan.new_lane());
  const double up_wire = up_bytes / chunks / tuning.efficiency, down_wire = down_bytes / chunks / tuning.efficiency;
  for (int c = 0; c < chunks; ++c) {
    std::map<EndpointId, std::vector<std::uint32_t>> arrived;  // a vertex's inputs of this chunk
    for (std::size_t e : up_order) {
      const auto& edge = tree.edges[e];
      arrived[edge.parent].push_back(
          plan.add(Transfer{edge.child, edge.parent, up_wire, arrived[edge.child], up_lane[e], 0}));
    }
    std::map<EndpointId, std::uint32_t> result;  // the down transfer that brought a switch the result
    for (std::size_t e : down_order) {
      const auto& edge = tree.edges[e];
      const bool at_root = edge.parent == tree.root;
      const std::vector<std::uint32_t> after = at_root ? arrived[tree.root] : std::vector{result.at(edge.parent)};
      result[edge.child] = plan.add(
          Transfer{edge.parent, edge.child, down_wire, after, down_lane[e], at_root ? tuning.step_latency : 0});
    }
  }
  return plan;
}

}  // namespace simctl
