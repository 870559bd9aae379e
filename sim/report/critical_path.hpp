#pragma once
// The chain of ops that set the step time. Starting from the op that
// finished last, each step goes back to whatever made the current op wait:
// for a communication op, the party that reached the rendezvous last (a
// straggler, or the pipeline stage that sent late); otherwise the
// latest-finishing of its dependencies and of the op before it on its stream.
#include <string>
#include <vector>

#include "sim/exec/execution_result.hpp"
#include "sim/report/rendezvous.hpp"
#include "workloads/trace.hpp"

namespace simctl {

struct PathOp {
  OpRef op;
  std::string name;
  std::string resource;  // "rank 3 compute", "data all_reduce over 8 ranks", "rank 0 host->device copy"
  TimePs start = 0;      // for communication, when the last party arrived
  TimePs end = 0;
};

struct ResourceShare {
  std::string resource;
  TimePs time = 0;
};

struct CriticalPath {
  std::vector<PathOp> ops;               // in time order
  std::vector<ResourceShare> resources;  // time on the path per resource, largest first
  TimePs gaps = 0;                       // time on the path covered by no op (should be ~0)
};

CriticalPath critical_path(const Trace& trace, const ExecutionResult& result, const RendezvousTable& rendezvous);

// Ops of the path sorted by duration, longest first, at most `count`.
std::vector<PathOp> longest_ops(const CriticalPath& path, std::size_t count);

}  // namespace simctl
