#pragma once
// Turns the timings of one replayed step into what a person asks: how long,
// where the time went, how efficient, and what limits it.
#include <string>
#include <vector>

#include "sim/core/units.hpp"

namespace simctl {

class System;
class DeviceCatalogue;
struct Trace;
struct ExecutionResult;

// Every field is time within one step on one rank (or the mean over ranks);
// compute + exposed_communication + exposed_copy + idle == step exactly.
struct TimeBreakdown {
  TimePs compute = 0;
  TimePs compute_memory_bound = 0;  // part of compute spent in memory-bound kernels
  TimePs exposed_communication = 0;
  TimePs overlapped_communication = 0;  // communication hidden under compute (not part of the sum)
  TimePs exposed_copy = 0;
  TimePs idle = 0;
  TimePs step = 0;
};

struct LinkReport {
  std::string name;
  TimePs busy = 0;
  double utilisation = 0.0;  // busy time / step time
  double bytes = 0.0;
  double average_bandwidth_bytes_per_s = 0.0;  // bytes / step time
};

struct RunLabels {
  std::string system;    // "DGX H100 (8 x h100-sxm)"
  std::string workload;  // "gpt-1.3b, DDP over 8 GPUs, bf16, micro-batch 4"
};

struct StepReport {
  RunLabels labels;
  int gpus = 0;
  TimePs step_time = 0;
  TimeBreakdown mean;  // averaged over ranks
  std::vector<TimeBreakdown> per_rank;
  double samples_per_s = 0.0;
  double tokens_per_s = 0.0;
  double model_tflops_per_gpu = 0.0;  // model FLOPs / step time / GPUs, in TFLOP/s
  double mfu = 0.0;                   // fraction of the GPUs' dense peak in the step's dtype
  double peak_tflops_per_gpu = 0.0;   // mean peak of the ranks' GPUs, in TFLOP/s
  std::string dtype;
  std::vector<LinkReport> busiest_links;  // by busy time, at most 5
  std::string bottleneck;                 // one line in plain words
  std::uint64_t events = 0;
  std::uint64_t flows = 0;
};

StepReport build_step_report(const Trace& trace, const ExecutionResult& result, const System& system,
                             const DeviceCatalogue& catalogue, RunLabels labels);

}  // namespace simctl
