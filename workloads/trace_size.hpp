#pragma once
// How large a trace may grow, and a cheap lower bound on a plan's op count
// computed from the plan alone, so a plan whose trace would need tens of
// gigabytes is refused before the trace is built.
#include <cstdint>
#include <string>

#include "workloads/workload_config.hpp"

namespace simctl {

// About 200 bytes each once built (the 41-million-op GPT-3 175B trace of
// bench/ takes 8 GB), so the limit is about 20 GB.
inline constexpr double kMaxTraceOps = 100'000'000;

// Every rank runs, for each of its micro-batches, at least this many ops per
// layer it holds (forward and backward together). The fewest measured on the
// shipped configs; the real count is higher, so the bound never refuses a
// trace that would fit.
inline constexpr double kMinOpsPerLayerMicroBatch = 2;

// ranks x micro-batches per rank x layers per rank x kMinOpsPerLayerMicroBatch.
double trace_ops_lower_bound(const WorkloadSpec& w, std::int64_t ranks);

// "at least 1.4e+14 ops (65536 ranks x 1024 micro-batches x 1024 layers per
// rank x 2), more than the 100000000 ops simctl builds (about 200 bytes each)"
// when the bound is over the limit; empty otherwise.
std::string describe_trace_too_large(const WorkloadSpec& w, std::int64_t ranks);

}  // namespace simctl
