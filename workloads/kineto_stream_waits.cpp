#include "workloads/kineto_stream_waits.hpp"

#include <algorithm>

namespace simctl {
namespace kineto_stream_waits_detail {

std::optional<std::int64_t> whole_arg(const nlohmann::json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

bool is_stream_wait(const nlohmann::json& e) {
  const auto cat = e.find("cat");
  const auto name = e.find("name");
  return cat != e.end() && cat->is_string() && cat->get<std::string>() == "cuda_sync" && name != e.end() &&
         name->is_string() && name->get<std::string>() == "Stream Wait Event";
}

}  // namespace kineto_stream_waits_detail

std::optional<KinetoStreamWaits> KinetoStreamWaits::from_events(const nlohmann::json& events) {
  using namespace kineto_stream_waits_detail;
  KinetoStreamWaits out;
  for (const nlohmann::json& e : events) {
    if (!e.is_object() || !is_stream_wait(e)) continue;
    const auto args = e.find("args");
    if (args == e.end() || !args->is_object()) return std::nullopt;
    const auto stream = whole_arg(*args, "stream");
    const auto correlation = whole_arg(*args, "correlation");
    const auto producer = whole_arg(*args, "wait_on_stream");
    const auto record = whole_arg(*args, "wait_on_cuda_event_record_corr_id");
    if (!stream || !correlation || !producer || !record || *record < 0) return std::nullopt;
    out.waits_[*stream].push_back({*correlation, *producer, *record});
  }
  if (out.waits_.empty()) return std::nullopt;
  for (auto& [stream, list] : out.waits_) {
    std::stable_sort(list.begin(), list.end(),
                     [](const Wait& a, const Wait& b) { return a.correlation < b.correlation; });
  }
  return out;
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
    const Wait& wait = list->second[next];
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
