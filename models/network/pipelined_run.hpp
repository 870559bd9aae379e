#pragma once
// The fast path of a chunked transfer plan (NVLSTree's): instead of one flow
// per transfer per chunk, one steady flow per transfer of a single chunk's
// pattern carries what that transfer carries over all chunks, and the
// pipeline's fill is added in closed form when the last flow drains.
//
// Step by step, each transfer of the pattern is a lane that sends its chunks
// one after another, so a pipeline of C chunks ends one chunk's trip through
// the pattern after the slowest lane's first C - 1 chunks: trip + (C - 1) x
// ct of the slowest lane, ct being a lane's time per chunk. The trip is
// simulated alone on an empty copy of the network (its transfers still
// contend with each other: both trees' sends share a NIC); the steady flows
// give the slowest lane's ct under the contention of all the others
// (drained / C). Closed forms of the trip were 1-6 % off: each transfer
// alone on its links too fast, each at its steady-state share too slow.
// Tests check it against the chunk-by-chunk plan
// (tests/network/nvls_tree_test.cpp).
#include <functional>

#include "models/network/transfer_plan.hpp"

namespace simctl {

// `one_chunk`: the pattern, every transfer on its own lane and depending
// only on earlier ones; `chunks` >= 1 repetitions. Starts its flows now, in
// one FlowNetwork batch; `on_done` runs when the last chunk has arrived.
// Throws std::invalid_argument for a transfer without a lane of its own.
void run_pipelined(const TransferContext& context, TransferPlan one_chunk, int chunks, std::function<void()> on_done);

}  // namespace simctl
