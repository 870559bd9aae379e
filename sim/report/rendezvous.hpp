#pragma once
// When each communication op could start moving bytes. A collective waits
// until every member of its group has reached it; a send or receive waits
// for its partner. The time before that is waiting on another rank (a
// straggler, or a pipeline stage still computing), not communication.
//
// Pairing follows the executor: a rank's k-th call on a group (in the order
// it reached them) meets every other member's k-th call on that group, and
// the k-th send from A to B meets B's k-th receive from A.
#include <cstdint>
#include <vector>

#include "sim/exec/execution_result.hpp"
#include "workloads/trace.hpp"

namespace simctl {

struct OpRef {
  std::uint32_t rank = 0;
  OpIndex op = 0;
  friend bool operator==(const OpRef&, const OpRef&) = default;
};

struct Rendezvous {
  TimePs ready = 0;    // when the last party arrived; the op's start for non-communication ops
  OpRef last_arrival;  // the party that arrived last (the op itself when it was last or alone)
};

// Only collectives and transfers meet anyone; every other op is ready when
// it starts. The table keeps entries for the former alone (a quarter of a
// training step's ops) and reads the result for the rest, so it is valid
// while the trace and result it was matched on live.
class RendezvousTable {
 public:
  RendezvousTable(const Trace& trace, const ExecutionResult& result);
  Rendezvous at(std::uint32_t rank, OpIndex op) const;
  Rendezvous& meeting(std::uint32_t rank, OpIndex op);  // a collective or transfer's entry
  // Per program: each op's position among its program's collectives and
  // transfers, or kNone; and those ops in list order.
  static constexpr std::uint32_t kNone = UINT32_MAX;
  const std::vector<OpIndex>& meeting_ops(std::uint32_t rank) const;

 private:
  const Trace* trace_;
  const ExecutionResult* result_;
  std::vector<std::vector<std::uint32_t>> position_;  // [program][op]
  std::vector<std::vector<OpIndex>> meeting_ops_;     // [program]
  std::vector<std::vector<Rendezvous>> meetings_;     // [rank][position]
};

RendezvousTable match_rendezvous(const Trace& trace, const ExecutionResult& result);

// Per rank: how long the other ranks spent waiting for it (their
// communication ops' time between starting and the rank arriving last).
// The largest entry is the straggler, or nn.DataParallel's master.
std::vector<TimePs> time_waited_on(const Trace& trace, const ExecutionResult& result, const RendezvousTable& table);

}  // namespace simctl
