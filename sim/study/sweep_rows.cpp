#include "sim/study/sweep_rows.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <thread>

#include "sim/study/study_points.hpp"

namespace simctl {
namespace {

nlohmann::json optional_number(const std::optional<double>& value) {
  return value ? nlohmann::json(*value) : nlohmann::json(nullptr);
}

std::optional<double> read_optional(const nlohmann::json& value) {
  return value.is_null() ? std::nullopt : std::optional<double>(value.get<double>());
}

PointStatus status_named(const std::string& name) {
  for (PointStatus s : {PointStatus::ok, PointStatus::invalid, PointStatus::out_of_memory}) {
    if (to_string(s) == name) return s;
  }
  throw std::runtime_error("unknown point status '" + name + "'");
}

}  // namespace

std::vector<PointRow> run_points(const Study& study, const std::vector<std::uint64_t>& indices, int jobs,
                                 const PointsProgress& progress) {
  std::vector<PointRow> rows(indices.size());
  std::atomic<std::size_t> next{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards `error`, `done` and the progress calls
  std::exception_ptr error;
  std::size_t done = 0;
  const auto work = [&] {
    for (std::size_t slot; !failed && (slot = next++) < indices.size();) {
      try {
        rows[slot] = {indices[slot], evaluate_point(study.base_path, point_overrides(study, indices[slot]))};
      } catch (...) {
        std::lock_guard lock(mutex);
        if (!error) error = std::current_exception();
        failed = true;
        return;
      }
      std::lock_guard lock(mutex);
      ++done;
      if (progress) progress(done, indices.size());
    }
  };
  const std::size_t threads = std::min<std::size_t>(static_cast<std::size_t>(std::max(jobs, 1)), indices.size());
  std::vector<std::thread> workers;
  for (std::size_t t = 1; t < threads; ++t) workers.emplace_back(work);
  work();
  for (std::thread& w : workers) w.join();
  if (error) std::rethrow_exception(error);
  return rows;
}

std::vector<std::uint64_t> shard_points(std::uint64_t point_count, std::uint64_t shard, std::uint64_t shards) {
  std::vector<std::uint64_t> points;
  for (std::uint64_t p = shard - 1; p < point_count; p += shards) points.push_back(p);
  return points;
}

nlohmann::json row_to_json(const PointRow& row) {
  const PointMetrics& m = row.outcome.metrics;
  nlohmann::json breakdown = nlohmann::json::array();
  for (double ms : m.breakdown_ms) breakdown.push_back(ms);
  return {{"point", row.point},
          {"status", to_string(row.outcome.status)},
          {"reason", row.outcome.reason},
          {"gpus", m.gpus},
          {"nodes", m.nodes},
          {"step_time_ms", m.step_time_ms},
          {"samples_per_s", m.samples_per_s},
          {"tokens_per_s", optional_number(m.tokens_per_s)},
          {"mfu", m.mfu},
          {"model_tflops_per_gpu", m.model_tflops_per_gpu},
          {"breakdown_ms", breakdown},
          {"peak_memory_gib", m.peak_memory_gib},
          {"min_headroom_gib", m.min_headroom_gib},
          {"bottleneck", m.bottleneck},
          {"currency", m.currency},
          {"cost_per_step", m.cost_per_step},
          {"cost_per_million_tokens", optional_number(m.cost_per_million_tokens)},
          {"owned_cost_per_million_tokens", optional_number(m.owned_cost_per_million_tokens)},
          {"energy_per_step_j", m.energy_per_step_j},
          {"energy_per_million_tokens_j", optional_number(m.energy_per_million_tokens_j)},
          {"average_power_w", m.average_power_w},
          {"pricing_source", m.pricing_source},
          {"power_source", m.power_source}};
}

PointRow row_from_json(const nlohmann::json& json) {
  PointRow row;
  row.point = json.at("point").get<std::uint64_t>();
  row.outcome.status = status_named(json.at("status").get<std::string>());
  row.outcome.reason = json.at("reason").get<std::string>();
  PointMetrics& m = row.outcome.metrics;
  m.gpus = json.at("gpus").get<int>();
  m.nodes = json.at("nodes").get<int>();
  m.step_time_ms = json.at("step_time_ms").get<double>();
  m.samples_per_s = json.at("samples_per_s").get<double>();
  m.tokens_per_s = read_optional(json.at("tokens_per_s"));
  m.mfu = json.at("mfu").get<double>();
  m.model_tflops_per_gpu = json.at("model_tflops_per_gpu").get<double>();
  const nlohmann::json& breakdown = json.at("breakdown_ms");
  if (breakdown.size() != m.breakdown_ms.size()) throw std::runtime_error("a row's breakdown has the wrong length");
  for (std::size_t c = 0; c < m.breakdown_ms.size(); ++c) m.breakdown_ms[c] = breakdown[c].get<double>();
  m.peak_memory_gib = json.at("peak_memory_gib").get<double>();
  m.min_headroom_gib = json.at("min_headroom_gib").get<double>();
  m.bottleneck = json.at("bottleneck").get<std::string>();
  m.currency = json.at("currency").get<std::string>();
  m.cost_per_step = json.at("cost_per_step").get<double>();
  m.cost_per_million_tokens = read_optional(json.at("cost_per_million_tokens"));
  m.owned_cost_per_million_tokens = read_optional(json.at("owned_cost_per_million_tokens"));
  m.energy_per_step_j = json.at("energy_per_step_j").get<double>();
  m.energy_per_million_tokens_j = read_optional(json.at("energy_per_million_tokens_j"));
  m.average_power_w = json.at("average_power_w").get<double>();
  m.pricing_source = json.at("pricing_source").get<std::string>();
  m.power_source = json.at("power_source").get<std::string>();
  return row;
}

}  // namespace simctl
