#include "models/network/nvls_tree_plan.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <stdexcept>

#include "models/network/node_trees.hpp"

namespace simctl {

namespace {

using Ids = std::vector<std::uint32_t>;

void append(Ids& to, const Ids& from) { to.insert(to.end(), from.begin(), from.end()); }

// Lanes: one per (stage, GPU) in the node, one per (tree, direction, node, rail) across.
struct Lanes {
  std::vector<std::vector<int>> reduce_up, reduce_down, gather_up, gather_down;  // [node][rail]
  std::vector<std::vector<std::vector<int>>> tree_up, tree_down;                 // [tree][node][rail]
};

Lanes make_lanes(TransferPlan& plan, std::size_t nodes, std::size_t m) {
  auto grid = [&] {
    std::vector<std::vector<int>> g(nodes, std::vector<int>(m));
    for (auto& row : g)
      for (int& lane : row) lane = plan.new_lane();
    return g;
  };
  Lanes l{grid(), grid(), grid(), grid(), {grid(), grid()}, {grid(), grid()}};
  return l;
}

}  // namespace

int nvls_tree_chunks(const NvlsTreeInputs& in) {
  const double wanted = std::ceil(in.bytes / in.tuning.chunk_bytes);
  return static_cast<int>(std::clamp(wanted, 2.0, static_cast<double>(std::max(in.tuning.max_chunks, 2))));
}

namespace {

// The plan's first `emitted` of its `chunks` chunks (all of them, or one as the pipelined pattern).
TransferPlan build_nvls_tree(const NvlsTreeInputs& in, int chunks, int emitted) {
  const std::size_t nodes = in.nodes.size();
  if (nodes < 2 || in.switches.size() != nodes) throw std::invalid_argument("nvls_tree needs two or more nodes");
  const std::size_t m = in.nodes.front().size();
  for (const auto& node : in.nodes) {
    if (node.size() != m) throw std::invalid_argument("nvls_tree needs the same number of GPUs in every node");
  }
  const double chunk = in.bytes / chunks;
  const double slice = chunk / static_cast<double>(m);
  const double nvlink = in.tuning.efficiency, net = in.network_efficiency;
  const std::array<NodeTree, 2> trees = nccl_double_tree(static_cast<int>(nodes));

  TransferPlan plan;
  const Lanes lanes = make_lanes(plan, nodes, m);
  auto gpu = [&](std::size_t k, std::size_t l) { return in.nodes[k][l]; };
  auto net_send = [&](std::size_t from, std::size_t to, std::size_t l, Ids after, int lane) {
    return plan.add(
        Transfer{gpu(from, l), gpu(to, l), slice / 2 / net, std::move(after), lane, in.tuning.network_step_latency});
  };
  for (int c = 0; c < emitted; ++c) {
    // Reduce inside each node: every GPU's chunk up, slice l of the sum down to local rank l.
    std::vector<Ids> reduced(nodes, Ids(m));
    for (std::size_t k = 0; k < nodes; ++k) {
      Ids ups;
      for (std::size_t l = 0; l < m; ++l) {
        ups.push_back(plan.add(Transfer{gpu(k, l), in.switches[k], chunk / nvlink, {}, lanes.reduce_up[k][l], 0}));
      }
      for (std::size_t l = 0; l < m; ++l) {
        reduced[k][l] = plan.add(Transfer{in.switches[k], gpu(k, l), slice / nvlink, ups, lanes.reduce_down[k][l], 0});
      }
    }
    // Across nodes, per rail and tree: each half-slice reduced up to the root, the sum broadcast down.
    // summed[k][l]: what GPU (k, l) must have received to hold the full sum of its slice.
    std::vector<std::vector<Ids>> summed(nodes, std::vector<Ids>(m));
    for (std::size_t t = 0; t < 2; ++t) {
      const NodeTree& tree = trees[t];
      for (std::size_t l = 0; l < m; ++l) {
        std::vector<std::uint32_t> up(nodes, 0);
        auto partial_of = [&](int k) {  // k's own slice plus its children's partials
          Ids deps{reduced[static_cast<std::size_t>(k)][l]};
          for (int child : tree.children[static_cast<std::size_t>(k)])
            deps.push_back(up[static_cast<std::size_t>(child)]);
          return deps;
        };
        for (int k : tree.deepest_first) {
          const int parent = tree.parent[static_cast<std::size_t>(k)];
          if (parent < 0) continue;
          up[static_cast<std::size_t>(k)] = net_send(static_cast<std::size_t>(k), static_cast<std::size_t>(parent), l,
                                                     partial_of(k), lanes.tree_up[t][static_cast<std::size_t>(k)][l]);
        }
        std::vector<Ids> has_sum(nodes);
        for (auto it = tree.deepest_first.rbegin(); it != tree.deepest_first.rend(); ++it) {
          const int k = *it;
          const int parent = tree.parent[static_cast<std::size_t>(k)];
          if (parent < 0) {
            has_sum[static_cast<std::size_t>(k)] = partial_of(k);
          } else {
            has_sum[static_cast<std::size_t>(k)] = {net_send(
                static_cast<std::size_t>(parent), static_cast<std::size_t>(k), l,
                has_sum[static_cast<std::size_t>(parent)], lanes.tree_down[t][static_cast<std::size_t>(k)][l])};
          }
          append(summed[static_cast<std::size_t>(k)][l], has_sum[static_cast<std::size_t>(k)]);
        }
      }
    }
    // Gather inside each node: each GPU's summed slice up, multicast to every GPU of the node.
    for (std::size_t k = 0; k < nodes; ++k) {
      Ids ups;
      for (std::size_t l = 0; l < m; ++l) {
        ups.push_back(
            plan.add(Transfer{gpu(k, l), in.switches[k], slice / nvlink, summed[k][l], lanes.gather_up[k][l], 0}));
      }
      for (std::size_t l = 0; l < m; ++l) {
        plan.add(
            Transfer{in.switches[k], gpu(k, l), chunk / nvlink, ups, lanes.gather_down[k][l], in.multicast_latency});
      }
    }
  }
  return plan;
}

}  // namespace

TransferPlan plan_nvls_tree(const NvlsTreeInputs& in) {
  const int chunks = nvls_tree_chunks(in);
  return build_nvls_tree(in, chunks, chunks);
}

TransferPlan plan_nvls_tree_chunk(const NvlsTreeInputs& in) { return build_nvls_tree(in, nvls_tree_chunks(in), 1); }

}  // namespace simctl
