#pragma once
// Turns the timings of one replayed step into what a person asks: how long,
// where the time went, how efficient, what it costs, and what limits it.
#include <optional>
#include <string>
#include <vector>

#include "sim/core/units.hpp"
#include "sim/exec/execution_result.hpp"
#include "sim/report/breakdown.hpp"
#include "sim/report/costs.hpp"
#include "sim/report/critical_path.hpp"
#include "sim/report/link_stats.hpp"
#include "sim/report/memory.hpp"

namespace simctl {

class System;
class DeviceCatalogue;
struct Trace;

struct RunLabels {
  std::string system;    // "DGX H100 (8 x h100-sxm)"
  std::string workload;  // "gpt-1.3b, DDP over 8 GPUs, bf16, micro-batch 4"
  // What priced the kernels beyond their roofline: "framework ideal (kernel
  // times x1.00); h100-sxm tensor kernels x1.145 at its 700 W clock";
  // empty for a replayed trace file.
  std::string priced_by = {};
};

// What the report needs beyond the trace and its timings; all optional.
struct ReportInputs {
  CostSpec costs;
  // Per rank, from the workload's memory estimator; empty when there is none.
  std::vector<std::vector<MemoryItem>> memory;
};

// One kind of collective the step ran, with nccl-tests' bandwidths over all
// its calls.
struct CollectiveReport {
  CollectiveUsage usage;
  double algbw_bytes_per_s = 0.0;  // the calls' bytes over their summed time
  double busbw_bytes_per_s = 0.0;  // algbw x nccl-tests' bus factor for the op and group size
};

struct StepReport {
  RunLabels labels;
  int gpus = 0;
  int nodes = 0;
  TimePs step_time = 0;
  TimeBreakdown mean;  // averaged over ranks
  std::vector<TimeBreakdown> per_rank;
  double samples_per_s = 0.0;
  std::optional<double> tokens_per_s;  // none for models without tokens (MLP, CNN)
  double model_tflops_per_gpu = 0.0;   // model FLOPs / step time / GPUs, in TFLOP/s
  double mfu = 0.0;                    // fraction of the GPUs' dense peak in the step's dtype
  double peak_tflops_per_gpu = 0.0;    // mean peak of the ranks' GPUs, in TFLOP/s
  // Each GPU model the ranks run on, in rank order: more than one means
  // peak_tflops_per_gpu is a mean the report must say it took.
  struct GpuPeak {
    std::string model;
    int ranks = 0;
    double tflops = 0.0;
  };
  std::vector<GpuPeak> gpu_peaks;
  std::string dtype;
  CostReport costs;
  std::vector<LinkReport> links;          // every directed link, by id
  std::vector<LinkReport> busiest_links;  // by busy time, at most 5
  std::vector<TierReport> tiers;
  std::vector<DeviceReport> busiest_devices;  // at most 5
  CriticalPath critical_path;
  std::vector<CollectiveReport> collectives;  // by kind (dimension, op, group size, algorithm, protocol)
  std::vector<RankMemory> memory;             // per rank
  std::vector<TimePs> waited_on;              // per rank: the others' time spent waiting for it (rendezvous.hpp)
  std::vector<std::string> rank_gpu_names;    // per rank: the GPU part it runs on ("node0.gpu3")
  std::string bottleneck;                     // one line in plain words
  std::size_t ops = 0;                        // ops in the trace, over all ranks
  std::uint64_t events = 0;
  std::uint64_t flows = 0;
};

StepReport build_step_report(const Trace& trace, const ExecutionResult& result, const System& system,
                             const DeviceCatalogue& catalogue, RunLabels labels, const ReportInputs& inputs = {});

}  // namespace simctl
