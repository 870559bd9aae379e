#pragma once
// The cross-stream dependencies a Kineto trace records exactly: its
// "Stream Wait Event" entries (category cuda_sync, written when the profiler
// ran with enable_cuda_sync_events). Each says that a CUDA stream, from the
// cudaStreamWaitEvent call with correlation id `correlation` on, waited for
// the event recorded on `wait_on_stream` by the cudaEventRecord call with
// correlation id `wait_on_cuda_event_record_corr_id`: for everything that
// stream had been given before that record call. Without such entries the
// importer falls back to what the profile shows an op could have waited for.
// Internal to workloads/.
#include <cstdint>
#include <map>
#include <vector>

#include "workloads/trace.hpp"

namespace simctl {

// One "Stream Wait Event" entry, as the importer reads it.
struct KinetoStreamWait {
  std::int64_t stream = 0;              // the waiting CUDA stream
  std::int64_t correlation = 0;         // the cudaStreamWaitEvent call
  std::int64_t producer_stream = 0;     // wait_on_stream
  std::int64_t record_correlation = 0;  // wait_on_cuda_event_record_corr_id
};

class KinetoStreamWaits {
 public:
  explicit KinetoStreamWaits(const std::vector<KinetoStreamWait>& waits);

  // A GPU op, in the order ops are added, with the CUDA stream it ran on and
  // the correlation id of its launch call (negative: unknown).
  void add_gpu_op(std::int64_t cuda_stream, std::int64_t launch_correlation, OpIndex op);
  // What an op launched on `cuda_stream` with `launch_correlation` waits for
  // beyond its stream's order: the producer of each wait that stream took
  // since its previous op was launched.
  std::vector<OpIndex> waits_of(std::int64_t cuda_stream, std::int64_t launch_correlation);

 private:
  struct Launched {
    std::int64_t correlation = 0;
    OpIndex op = 0;
  };
  std::map<std::int64_t, std::vector<KinetoStreamWait>> waits_;  // by waiting stream, by correlation
  std::map<std::int64_t, std::size_t> next_wait_;                // by waiting stream: the first wait not yet taken
  std::map<std::int64_t, std::vector<Launched>> launched_;       // by stream, in launch order
};

}  // namespace simctl
