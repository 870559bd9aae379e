#include "workloads/pipeline_schedule.hpp"

#include <algorithm>

namespace simctl {
namespace {

std::vector<PipelineStep> gpipe(std::int64_t m) {
  std::vector<PipelineStep> steps;
  for (std::int64_t i = 0; i < m; ++i) steps.push_back({true, i, 0});
  for (std::int64_t i = 0; i < m; ++i) steps.push_back({false, i, 0});
  return steps;
}

std::vector<PipelineStep> one_f_one_b(std::int64_t p, std::int64_t stage, std::int64_t m) {
  const std::int64_t warmup = std::min(p - stage - 1, m);
  std::vector<PipelineStep> steps;
  for (std::int64_t i = 0; i < warmup; ++i) steps.push_back({true, i, 0});
  for (std::int64_t i = 0; i < m - warmup; ++i) {
    steps.push_back({true, warmup + i, 0});
    steps.push_back({false, i, 0});
  }
  for (std::int64_t i = m - warmup; i < m; ++i) steps.push_back({false, i, 0});
  return steps;
}

// Megatron's mapping from the k-th forward (or backward) of a stage to its
// micro-batch and chunk: groups of p micro-batches go through chunk 0, then
// chunk 1, ...; backwards visit the chunks in reverse.
PipelineStep interleaved_step(bool forward, std::int64_t k, std::int64_t p, std::int64_t v) {
  const std::int64_t in_group = k % (p * v);
  const std::int64_t chunk = in_group / p;
  const std::int64_t micro = (k / (p * v)) * p + k % p;
  return {forward, micro, forward ? chunk : v - 1 - chunk};
}

std::vector<PipelineStep> interleaved(std::int64_t p, std::int64_t stage, std::int64_t m, std::int64_t v) {
  const std::int64_t total = m * v;
  // All forwards first when there are only p micro-batches, as Megatron does.
  const std::int64_t warmup = m == p ? total : std::min((p - stage - 1) * 2 + (v - 1) * p, total);
  std::vector<PipelineStep> steps;
  for (std::int64_t k = 0; k < warmup; ++k) steps.push_back(interleaved_step(true, k, p, v));
  for (std::int64_t k = 0; k < total - warmup; ++k) {
    steps.push_back(interleaved_step(true, warmup + k, p, v));
    steps.push_back(interleaved_step(false, k, p, v));
  }
  for (std::int64_t k = total - warmup; k < total; ++k) steps.push_back(interleaved_step(false, k, p, v));
  return steps;
}

}  // namespace

std::vector<PipelineStep> stage_schedule(PipelineSchedule schedule, std::int64_t stages, std::int64_t stage,
                                         std::int64_t micro_batches, std::int64_t chunks) {
  switch (schedule) {
    case PipelineSchedule::gpipe: return gpipe(micro_batches);
    case PipelineSchedule::one_f_one_b: return one_f_one_b(stages, stage, micro_batches);
    case PipelineSchedule::interleaved: return interleaved(stages, stage, micro_batches, chunks);
  }
  return {};
}

std::int64_t peak_in_flight(const std::vector<PipelineStep>& steps) {
  std::int64_t live = 0, peak = 0;
  for (const auto& step : steps) {
    live += step.forward ? 1 : -1;
    peak = std::max(peak, live);
  }
  return peak;
}

}  // namespace simctl
