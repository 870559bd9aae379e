#include "workloads/kineto_stream_waits.hpp"

#include <algorithm>

namespace simctl {

KinetoStreamWaits::KinetoStreamWaits(const std::vector<KinetoStreamWait>& waits) {
  for (const KinetoStreamWait& wait : waits) waits_[wait.stream].push_back(wait);
  for (auto& [stream, list] : waits_) {
    std::stable_sort(list.begin(), list.end(), [](const KinetoStreamWait& a, const KinetoStreamWait& b) {
      return a.correlation < b.correlation;
    });
  }
}

void KinetoStreamWaits::add_gpu_op(std::int64_t cuda_stream, std::int64_t launch_correlation, OpIndex op) {
  if (launch_correlation >= 0) launched_[cuda_stream].push_back({launch_correlation, op});
}

std::vector<OpIndex> KinetoStreamWaits::waits_of(std::int64_t cuda_stream, std::int64_t launch_correlation) {
  std::vector<OpIndex> deps;
  const auto list = waits_.find(cuda_stream);
  if (list == waits_.end() || launch_correlation < 0) return deps;
  std::size_t& next = next_wait_[cuda_stream];
  for (; next < list->second.size() && list->second[next].correlation < launch_correlation; ++next) {
    const KinetoStreamWait& wait = list->second[next];
    const auto producers = launched_.find(wait.producer_stream);
    if (producers == launched_.end()) continue;
    // The last op the producer stream was given before the event was recorded.
    const auto& ops = producers->second;
    const auto after = std::lower_bound(ops.begin(), ops.end(), wait.record_correlation,
                                        [](const Launched& l, std::int64_t c) { return l.correlation < c; });
    if (after == ops.begin()) continue;
    const OpIndex producer = std::prev(after)->op;
    if (std::find(deps.begin(), deps.end(), producer) == deps.end()) deps.push_back(producer);
  }
  return deps;
}

}  // namespace simctl
