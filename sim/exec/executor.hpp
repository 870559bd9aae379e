#pragma once
// Replays a per-rank trace on a system: compute ops on each GPU's compute
// stream (priced by the device's roofline), collectives as point-to-point
// flows on routed paths, copies as flows over PCIe/C2C. Produces the timing
// of every op; judging what the timings mean is the report's job.
#include <array>
#include <deque>
#include <map>
#include <memory>
#include <vector>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective.hpp"
#include "models/network/flow_network.hpp"
#include "sim/core/engine.hpp"
#include "sim/exec/execution_result.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

class Executor {
 public:
  Executor(const System& system, const DeviceCatalogue& catalogue, const Trace& trace, CollectiveTuning tuning);
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs the whole trace once. Throws std::runtime_error if the trace
  // deadlocks (an op whose dependencies can never finish).
  ExecutionResult run();

 private:
  static constexpr std::size_t kStreams = 3;
  struct RankState {
    const GpuSpec* gpu = nullptr;
    EndpointId endpoint = 0;
    double compute_speed = 1.0;                    // the GPU's fraction of catalogue speed (stragglers)
    std::vector<std::uint32_t> unfinished_deps;    // per op
    std::vector<std::vector<OpIndex>> dependents;  // per op
    std::array<std::vector<OpIndex>, kStreams> stream_order;
    std::array<std::size_t, kStreams> stream_head{};
    std::array<bool, kStreams> stream_busy{};
    std::vector<std::uint32_t> next_collective;  // per group: calls issued so far
    std::size_t finished = 0;
  };
  struct PendingCollective {
    std::vector<std::pair<std::uint32_t, OpIndex>> arrived;  // (rank, op)
  };
  // Sends and receives between one ordered pair of ranks, waiting for their
  // partner; they pair up in arrival order.
  struct PendingPeer {
    std::deque<OpIndex> sends;     // on the sending rank
    std::deque<OpIndex> receives;  // on the receiving rank
  };

  void prepare_rank(std::uint32_t rank);
  void try_start_stream(std::uint32_t rank, std::size_t stream);
  void start_op(std::uint32_t rank, OpIndex op);
  void start_compute(std::uint32_t rank, OpIndex op, const ComputeWork& work);
  void arrive_at_collective(std::uint32_t rank, OpIndex op, const CollectiveCall& call);
  void launch_collective(std::uint32_t group, std::uint32_t instance);
  void start_copy(std::uint32_t rank, OpIndex op, const CopyCall& copy);
  void arrive_at_peer_transfer(std::uint32_t rank, OpIndex op, const PeerTransfer& transfer);
  void launch_peer_transfer(std::uint32_t sender, std::uint32_t receiver, OpIndex send_op, OpIndex receive_op);
  void finish_op(std::uint32_t rank, OpIndex op);

  const System& system_;
  const DeviceCatalogue& catalogue_;
  const Trace& trace_;
  CollectiveTuning tuning_;

  Engine engine_;
  std::unique_ptr<FlowNetwork> network_;
  std::unique_ptr<CollectiveRunner> collectives_;
  std::vector<RankState> ranks_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, PendingCollective> pending_collectives_;
  std::map<std::pair<std::uint32_t, std::uint32_t>, PendingPeer> pending_peers_;  // by (sender, receiver)
  ExecutionResult result_;
};

}  // namespace simctl
