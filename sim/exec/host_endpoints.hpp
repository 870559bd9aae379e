#pragma once
// Where a host-side copy starts and ends for a GPU: its node's host memory
// (the DRAM nearest to it) and its node's storage. Kept apart from the
// executor because it is a question about the topology, not about replay.
#include <utility>

#include "models/network/path.hpp"
#include "workloads/trace.hpp"

namespace simctl {

class System;

// (from, to) endpoints of a copy of the given direction for `gpu`.
// Throws std::runtime_error naming the GPU when its node lacks the part.
std::pair<EndpointId, EndpointId> copy_endpoints(const System& system, EndpointId gpu, CopyDirection direction);

}  // namespace simctl
