#include "sim/exec/compute_bound.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <tuple>

#include "models/devices/compute_model.hpp"
#include "sim/exec/program_shape.hpp"

namespace simctl {
namespace {

// Per stream, the sum of a program's compute kernel times on one GPU.
std::array<TimePs, kStreamCount> stream_kernel_sums(const std::vector<Op>& ops, const GpuSpec& gpu, double speed) {
  std::array<TimePs, kStreamCount> sums{};
  for (const Op& op : ops) {
    if (const auto* work = std::get_if<ComputeWork>(&op.work)) {
      sums[stream_index(op.stream)] += kernel_time_at_speed(estimate_compute(gpu, *work).time, speed);
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
      const auto sums = stream_kernel_sums(trace.programs[program], gpu, part.compute_speed);
      at->second = *std::max_element(sums.begin(), sums.end());
    }
    bound = std::max(bound, at->second);
  }
  return bound;
}

}  // namespace simctl
