#pragma once
// A hand-made two-rank step with known timings, small enough to work out
// every category by hand (see the comments).
#include "sim/exec/execution_result.hpp"
#include "workloads/trace.hpp"

namespace simctl::testing {

struct HandStep {
  Trace trace;
  ExecutionResult result;
};

inline Op make_op(Stream stream, OpPhase phase, decltype(Op::work) work, std::vector<OpIndex> deps = {}) {
  Op op;
  op.name = "op";
  op.stream = stream;
  op.phase = phase;
  op.work = std::move(work);
  op.deps = std::move(deps);
  return op;
}

// rank 0: compute 0-40 (compute-bound), 50-70 (memory-bound); all-reduce on
//         the comm stream 30-60 (rank 1 arrives at 35); copy 75-80; optimizer
//         80-90; pipeline send to rank 1 80-90.
// rank 1: all-reduce 35-60; pipeline receive from rank 0 60-90 (the send is
//         posted at 80); compute 90-100.
inline HandStep two_rank_step() {
  HandStep s;
  s.trace.groups = {{0, 1}};
  const CollectiveCall all_reduce{CollectiveOp::all_reduce, 0, 1e6, CommDimension::data};
  PeerTransfer send{PeerTransfer::Side::send, 1, 1e6, CommDimension::pipeline};
  PeerTransfer receive{PeerTransfer::Side::receive, 0, 1e6, CommDimension::pipeline};
  for (std::uint32_t r = 0; r < 2; ++r) s.trace.ranks.push_back(RankTrace{r, {}, {}});
  s.trace.programs.resize(2);
  s.trace.programs[0] = {
      make_op(Stream::compute, OpPhase::forward, ComputeWork{}),
      make_op(Stream::compute, OpPhase::backward, ComputeWork{}),
      make_op(Stream::communication, OpPhase::gradient_sync, all_reduce),
      make_op(Stream::copy, OpPhase::host_copy, CopyCall{CopyDirection::host_to_device, 1e6}, {1}),
      make_op(Stream::compute, OpPhase::optimizer, ComputeWork{}, {3}),
      make_op(Stream::communication, OpPhase::forward, send, {3}),
  };
  s.trace.programs[1] = {
      make_op(Stream::communication, OpPhase::gradient_sync, all_reduce),
      make_op(Stream::communication, OpPhase::forward, receive),
      make_op(Stream::compute, OpPhase::forward, ComputeWork{}, {1}),
  };
  s.result.timelines.resize(2);
  s.result.timelines[0].ops = {{0, 40}, {50, 70}, {30, 60}, {75, 80}, {80, 90}, {80, 90}};
  const auto c = KernelBound::compute, m = KernelBound::memory;
  s.result.timelines[0].bound = std::make_shared<std::vector<KernelBound>>(std::vector<KernelBound>{c, m, c, c, m, c});
  s.result.timelines[0].finish = 90;
  s.result.timelines[1].ops = {{35, 60}, {60, 90}, {90, 100}};
  s.result.timelines[1].finish = 100;
  s.result.step_time = 100;
  return s;
}

}  // namespace simctl::testing
