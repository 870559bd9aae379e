#include "sim/exec/compute_bound.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "models/devices/compute_model.hpp"
#include "models/devices/measured_kernel.hpp"
#include "sim/exec/program_shape.hpp"

namespace simctl {
namespace {

// Every field estimate_compute reads: a program repeats each layer's
// kernels for every micro-batch, so most of its ops share a few keys.
using WorkKey = std::tuple<ComputeKind, DType, double, double, std::int64_t, std::int64_t, std::int64_t, std::int64_t,
                           FusedAttention, bool, bool, int, bool, double>;

WorkKey key_of(const ComputeWork& w) {
  return {w.kind,   w.dtype,    w.flops,     w.memory_bytes,    w.m, w.n, w.k, w.batch, w.attention_kernel, w.backward,
          w.causal, w.comm_sms, w.sustained, w.measured_seconds};
}

// Per stream, the sum of a program's compute kernel times on one GPU.
std::array<TimePs, kStreamCount> stream_kernel_sums(const std::vector<Op>& ops, const GpuSpec& gpu, double speed,
                                                    const GpuSpec* measured_on) {
  std::array<TimePs, kStreamCount> sums{};
  std::map<WorkKey, TimePs> priced;
  for (const Op& op : ops) {
    if (const auto* work = std::get_if<ComputeWork>(&op.work)) {
      auto [at, added] = priced.try_emplace(key_of(*work), 0);
      if (added) {
        const TimePs time = work->measured_seconds > 0.0 && measured_on
                                ? measured_kernel_estimate(*work, *measured_on, gpu).time
                                : estimate_compute(gpu, *work).time;
        at->second = kernel_time_at_speed(time, speed);
      }
      sums[stream_index(op.stream)] = later_by(sums[stream_index(op.stream)], at->second);
    }
  }
  return sums;
}

}  // namespace

TimePs compute_stream_bound(const Trace& trace, const System& system, const DeviceCatalogue& catalogue) {
  std::map<std::tuple<std::uint32_t, const GpuSpec*, double>, TimePs> priced;  // (program, GPU, speed) -> bound
  TimePs bound = 0;
  for (std::uint32_t rank = 0; rank < trace.ranks.size(); ++rank) {
    const Part& part = system.part(system.gpus()[trace.gpu_index(rank)]);
    const GpuSpec& gpu = catalogue.gpu(part.model);
    const std::uint32_t program = trace.ranks[rank].program;
    auto [at, added] = priced.try_emplace({program, &gpu, part.compute_speed}, 0);
    if (added) {
      const auto sums =
          stream_kernel_sums(trace.programs[program], gpu, part.compute_speed, catalogue.find_gpu(trace.measured_on));
      at->second = *std::max_element(sums.begin(), sums.end());
    }
    bound = std::max(bound, at->second);
  }
  return bound;
}

}  // namespace simctl
