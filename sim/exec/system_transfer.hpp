#pragma once
// "How long does moving N bytes from A to B take on this system?" The ends
// are parts of the system graph; a CPU socket end may name one level of its
// memory hierarchy ("node0.cpu@l2"), as one core reading it. The move is a
// chain of stages (models/network/transfer_time.hpp): the source's memory
// (cache lines, DRAM bursts, HBM sectors, storage blocks, each with its
// first-byte latency and rate), every link of the routed path between the
// parts (hop latency, effective rate), then the destination's memory. A
// pageable host end adds the CPU's staging memcpy (pageable_staging.hpp).
#include <string>
#include <string_view>
#include <vector>

#include "models/devices/device_catalogue.hpp"
#include "models/network/transfer_time.hpp"
#include "sim/topology/system.hpp"

namespace simctl {

struct TransferEnd {
  EndpointId part = 0;
  std::string level;  // "l1", "l2", "l3", "dram" on a CPU socket; empty otherwise
};

// "PART" or "CPU_PART@LEVEL". Throws std::invalid_argument saying what is
// valid (unknown part, a level on a part that is not a CPU, a level the
// catalogue does not give).
TransferEnd parse_transfer_end(const System& system, const DeviceCatalogue& catalogue, std::string_view text);

// The stages from `from` to `to`; the same part at both ends is a read of
// that part's memory alone.
std::vector<TransferStage> transfer_stages(const System& system, const DeviceCatalogue& catalogue,
                                           const TransferEnd& from, const TransferEnd& to);

// Whether a pageable host buffer applies: one end is host memory (a DRAM
// part or a CPU level), the other a GPU.
bool is_host_device_copy(const System& system, const TransferEnd& from, const TransferEnd& to);

// The move's time; `pageable` stages a host<->GPU copy through a pinned
// buffer (throws std::invalid_argument on any other pair).
TransferTime system_transfer(const System& system, const DeviceCatalogue& catalogue, const TransferEnd& from,
                             const TransferEnd& to, Bytes bytes, bool pageable);

}  // namespace simctl
