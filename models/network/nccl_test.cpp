#include "models/network/nccl_test.hpp"

#include <map>
#include <stdexcept>
#include <string>

#include "models/network/system_collective_topology.hpp"

namespace simctl {

std::vector<EndpointId> collective_members(const System& system, const CollectivePoint& point) {
  const auto& gpus = system.gpus();
  const std::size_t count = point.gpus == 0 ? gpus.size() : static_cast<std::size_t>(point.gpus);
  if (count > gpus.size() || count == 0 || point.gpus < 0) {
    throw std::invalid_argument("asked for " + std::to_string(point.gpus) + " GPUs; the system has " +
                                std::to_string(gpus.size()));
  }
  if (point.per_node < 0 || (point.per_node > 0 && count % static_cast<std::size_t>(point.per_node) != 0)) {
    throw std::invalid_argument(std::to_string(point.per_node) + " GPUs per node cannot make " + std::to_string(count) +
                                " GPUs: give a divisor of the GPU count (0: whole nodes)");
  }
  if (point.per_node == 0) return {gpus.begin(), gpus.begin() + static_cast<std::ptrdiff_t>(count)};
  // A node's first `per_node` GPUs in rank order, node after node.
  std::vector<EndpointId> members;
  std::map<int, int> taken;  // node -> GPUs taken from it
  for (EndpointId gpu : gpus) {
    if (members.size() == count) break;
    int& n = taken[system.part(gpu).node];
    if (n < point.per_node) members.push_back(gpu), ++n;
  }
  for (const auto& [node, n] : taken) {
    if (n < point.per_node) {
      throw std::invalid_argument(std::to_string(point.per_node) + " GPUs per node asked, but node " +
                                  std::to_string(node) + " has " + std::to_string(n));
    }
  }
  if (members.size() < count) {
    throw std::invalid_argument("asked for " + std::to_string(count) + " GPUs at " + std::to_string(point.per_node) +
                                " per node; the system's nodes give " + std::to_string(members.size()));
  }
  return members;
}

CollectiveResult simulate_collective(const System& system, const CollectiveTuning& tuning,
                                     const CollectivePoint& point) {
  const std::vector<EndpointId> members = collective_members(system, point);
  const std::size_t count = members.size();
  Engine engine;
  FlowNetwork network(engine, system.link_capacities(), system.count_only_links());
  network.time_recomputes();  // reported in CollectiveResult (bench_collective)
  CollectiveRunner runner(engine, network, system, tuning);
  CollectiveTopology topology = describe_collective_topology(system, point.sharp);
  topology.ctas = point.ctas;
  runner.set_topology(std::move(topology));
  CollectiveRequest request{point.op, members, point.bytes, point.algorithm, point.protocol};
  CollectiveResult result;
  result.choice = runner.choice_for(request);
  TimePs done = 0;
  runner.start(request, [&] { done = engine.now(); });
  engine.run();
  result.time = done;
  if (done > 0) result.algbw_bytes_per_s = point.bytes / ps_to_seconds(done);
  result.busbw_bytes_per_s = result.algbw_bytes_per_s * bus_bandwidth_factor(point.op, static_cast<int>(count));
  result.events = engine.events_processed();
  result.flows = network.flows_started();
  result.rate_recomputations = network.rate_recomputations();
  result.recompute_wall_seconds = network.recompute_wall_seconds();
  return result;
}

TimePs simulate_copy(const System& system, EndpointId from, EndpointId to, double bytes) {
  Engine engine;
  FlowNetwork network(engine, system.link_capacities(), system.count_only_links());
  TimePs done = 0;
  network.start(system.route(from, to), bytes, [&] { done = engine.now(); });
  engine.run();
  return done;
}

}  // namespace simctl
