#pragma once
// How long moving N bytes takes through a chain of stages: a memory level
// (cache, DRAM, HBM, a disk), then each link of a route, then the
// destination's memory. Every stage moves whole units of its granularity (a
// 64-byte cache line, a DRAM burst, a 4 KiB storage block), so a read of 100
// bytes from a disk costs a block. The stages stream: the first byte pays
// every stage's latency once, and the rest flows at the slowest stage's
// rate, each stage moving its own rounded byte count:
//
//   time = sum(latency_i) + max_i(round_up(N, granularity_i) / bandwidth_i)
//
// A staged move (a pageable cudaMemcpy: CPU memcpy into a pinned buffer,
// then DMA) is two such moves overlapped chunk by chunk (chunked_staging()).
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

struct TransferStage {
  std::string name;     // "node0.dram (DDR5 burst)", "pcie_gen5_x16 node0.cpu->node0.gpu0"
  TimePs latency = 0;   // to the first byte through this stage
  Bandwidth bandwidth;  // streaming rate; 0 = does not limit
  Bytes granularity = 1;
};

struct TransferTime {
  Bytes bytes = 0;         // requested
  Bytes bytes_moved = 0;   // rounded up by the coarsest stage
  TimePs latency = 0;      // first byte
  TimePs time = 0;         // last byte
  std::string bottleneck;  // the stage that sets the streaming time; empty when none limits
  // Requested bytes over the whole time (latency included), bytes/s.
  double effective_bytes_per_s() const;
};

Bytes round_up(Bytes bytes, Bytes granularity);

// Throws std::invalid_argument for negative bytes or a stage with
// granularity < 1.
TransferTime transfer_time(const std::vector<TransferStage>& stages, Bytes bytes);

// `first` then `second`, the second starting when the first has finished.
TransferTime staged(const TransferTime& first, const TransferTime& second);

// A pageable copy: the CPU's `memcpy` through a pinned buffer and the `dma`
// over the same bytes, in chunks of `chunk` bytes, the DMA of one chunk
// overlapping the memcpy of the next. One chunk's memcpy cannot overlap (the
// first, before the DMA starts, going to the device; the last, after it
// ends, coming back); the rest of the memcpy and the DMA stream together at
// the slower one's pace. With n chunks and streaming times M (memcpy) and D
// (DMA):
//
//   time = latencies + M / n + max(M - M / n, D)
//
// which is the memcpy then the DMA for one chunk, tends to max(M, D) for
// many, and is what the executor replays (one chunk's memcpy, and a DMA
// flow capped at the rate of the rest of the memcpy). An ideal pipeline
// takes max(M, D) + min(M, D) / n: this is within one chunk's DMA of it.
// The first byte arrives after one chunk of the stage in front.
TransferTime chunked_staging(const TransferTime& memcpy, const TransferTime& dma, Bytes chunk, bool to_device);

}  // namespace simctl
