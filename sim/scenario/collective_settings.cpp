#include "sim/scenario/collective_settings.hpp"

#include <map>
#include <string>
#include <utility>
#include <vector>

#include "models/network/collective_choice.hpp"
#include "models/network/system_collective_topology.hpp"
#include "sim/report/categories.hpp"

namespace simctl {
namespace {

// A group the trace runs an op on.
struct GroupUse {
  CollectiveOp op;
  std::uint32_t group;
  friend auto operator<=>(const GroupUse&, const GroupUse&) = default;
};

// Every (op, group) the trace runs with bytes to move, each with its
// dimension. Ranks share programs, so each program's calls are listed once
// and only the slot bindings are walked per rank.
std::map<GroupUse, CommDimension> group_uses(const Trace& trace) {
  std::vector<std::vector<const CollectiveCall*>> calls(trace.programs.size());
  for (std::size_t p = 0; p < trace.programs.size(); ++p) {
    std::map<std::pair<CollectiveOp, std::uint32_t>, const CollectiveCall*> distinct;
    for (const Op& op : trace.programs[p]) {
      const auto* call = std::get_if<CollectiveCall>(&op.work);
      if (call && call->bytes > 0.0) distinct.try_emplace({call->op, call->group}, call);
    }
    for (const auto& [key, call] : distinct) calls[p].push_back(call);
  }
  std::map<GroupUse, CommDimension> uses;
  for (std::uint32_t rank = 0; rank < trace.ranks.size(); ++rank) {
    for (const CollectiveCall* call : calls[trace.ranks[rank].program]) {
      uses.try_emplace({call->op, trace.group(rank, *call)}, call->dimension);
    }
  }
  return uses;
}

// "the DP all_reduce over 16 GPUs in 2 nodes"
std::string describe_use(CollectiveOp op, CommDimension d, const GroupShape& shape, std::size_t members) {
  return "the " + std::string(abbreviation(d)) + " " + std::string(to_string(op)) + " over " + std::to_string(members) +
         " GPUs in " + std::to_string(shape.node_count()) + (shape.node_count() == 1 ? " node" : " nodes");
}

std::vector<std::string> algorithms_that_apply(const CollectiveRequest& request, const GroupShape& shape,
                                               const CollectiveTopology& topology) {
  std::vector<std::string> names;
  for (CollectiveAlgorithm a : kAllCollectiveAlgorithms) {
    if (algorithm_applies(a, request, shape, &topology)) names.emplace_back(to_string(a));
  }
  return names;
}

void check_sharp_fabric(const ConfigNode& section, const System& system) {
  if (system.parts_of_kind(PartKind::network_switch).empty()) {
    section.child("sharp").fail("system '" + system.name() +
                                "' has no network switch to reduce in; SHARP needs a switched fabric "
                                "(InfiniBand), so remove `sharp: true`");
  }
}

void check_group(const ConfigNode& section, const CollectiveOverrides& overrides, const CollectiveTopology& topology,
                 const CollectiveRequest& request, CommDimension dimension) {
  const GroupShape shape = shape_of(request.members, &topology);
  if (algorithm_applies(request.algorithm, request, shape, &topology)) return;
  const ConfigNode field = section.child(to_string(request.op));
  const std::string what = std::string(to_string(request.algorithm)) + " cannot run " +
                           describe_use(request.op, dimension, shape, request.members.size());
  if (request.algorithm == CollectiveAlgorithm::sharp && !overrides.sharp) {
    field.fail(what + ": the fabric's switches do not reduce; add `sharp: true` under `collectives:`");
  }
  field.fail(what + "; valid for it: " + join_choices(algorithms_that_apply(request, shape, topology)));
}

}  // namespace

CollectiveOverrides load_collective_overrides(const ConfigNode& root, const System& system, const Trace& trace) {
  const auto section = root.optional_child("collectives");
  if (!section) return {};
  const CollectiveOverrides overrides = parse_collective_overrides(*section);
  if (overrides.sharp) check_sharp_fabric(*section, system);
  const CollectiveTopology topology = describe_collective_topology(system, overrides.sharp);
  for (const auto& [use, dimension] : group_uses(trace)) {
    CollectiveRequest request{use.op, {}, 1.0, overrides.for_op(use.op)};
    if (request.algorithm == CollectiveAlgorithm::automatic) continue;
    const auto& ranks = trace.groups.at(use.group);
    if (ranks.size() <= 1) continue;  // nothing to run: it completes at once
    for (std::uint32_t rank : ranks) request.members.push_back(system.gpus()[trace.gpu_index(rank)]);
    check_group(*section, overrides, topology, request, dimension);
  }
  return overrides;
}

}  // namespace simctl
