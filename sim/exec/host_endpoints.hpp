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

// (from, to) of the bytes a host CPU pass streams for `gpu`'s rank: from its
// host memory (as copy_endpoints picks it) to the CPU socket nearest to that
// memory, i.e. over the socket's memory bus.
std::pair<EndpointId, EndpointId> host_memory_pass_endpoints(const System& system, EndpointId gpu);

}  // namespace simctl
