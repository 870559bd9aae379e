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

// Only collectives and transfers meet anyone; every other op is ready when
// it starts. The table keeps entries for the former alone (a quarter of a
// training step's ops) and reads the result for the rest, so it is valid
// while the trace and result it was built from live.
class RendezvousTable {
 public:
  // The executor's record of every meeting; a result that carries none (one
  // built by hand) has them matched from its timings.
  RendezvousTable(const Trace& trace, const ExecutionResult& result);
  Rendezvous at(std::uint32_t rank, OpIndex op) const;
  // Per program: each op's position among its program's collectives and
  // transfers, or kNone; and those ops in list order.
  static constexpr std::uint32_t kNone = UINT32_MAX;
  const std::vector<OpIndex>& meeting_ops(std::uint32_t rank) const;

 private:
  friend RendezvousTable rendezvous_from_timings(const Trace& trace, const ExecutionResult& result);
  struct FromTimings {};
  RendezvousTable(const Trace& trace, const ExecutionResult& result, FromTimings);
  Rendezvous& matched(std::uint32_t rank, OpIndex op);

  const Trace* trace_;
  const ExecutionResult* result_;
  std::vector<std::vector<std::uint32_t>> position_;   // [program][op]
  std::vector<std::vector<OpIndex>> meeting_ops_;      // [program]
  bool recorded_ = false;                              // read the executor's record (result_->meeting), not matched_
  std::vector<std::pmr::vector<Rendezvous>> matched_;  // [rank][position], when nothing was recorded
};

RendezvousTable match_rendezvous(const Trace& trace, const ExecutionResult& result);

// Matches every meeting from the timings alone, as the executor paired
// them: what a hand-built result gets, and what tests hold the record to.
RendezvousTable rendezvous_from_timings(const Trace& trace, const ExecutionResult& result);

std::vector<TimePs> time_waited_on(const Trace& trace, const ExecutionResult& result, const RendezvousTable& table);

}  // namespace simctl
