#include "workloads/layer_split.hpp"

#include <algorithm>

#include "workloads/workload_config.hpp"

namespace simctl {

std::int64_t chunk_block_count(const WorkloadSpec& spec, std::int64_t virtual_stage) {
  const auto& par = spec.parallel;
  if (!par.stage_layers.empty()) return par.stage_layers[static_cast<std::size_t>(virtual_stage)];
  return spec.model.layers / (par.pipeline * par.virtual_stages);
}

std::int64_t chunk_first_block(const WorkloadSpec& spec, std::int64_t virtual_stage) {
  const auto& split = spec.parallel.stage_layers;
  if (split.empty()) return virtual_stage * chunk_block_count(spec, 0);
  std::int64_t first = 0;
  for (std::int64_t v = 0; v < virtual_stage; ++v) first += split[static_cast<std::size_t>(v)];
  return first;
}

std::vector<std::int64_t> chunk_first_blocks(const WorkloadSpec& spec) {
  const std::int64_t chunks = spec.parallel.pipeline * spec.parallel.virtual_stages;
  std::vector<std::int64_t> firsts;
  std::int64_t first = 0;
  for (std::int64_t v = 0; v < chunks; ++v) {
    firsts.push_back(first);
    first += chunk_block_count(spec, v);
  }
  return firsts;
}

std::int64_t stage_block_count(const WorkloadSpec& spec, std::int64_t stage) {
  std::int64_t count = 0;
  for (std::int64_t c = 0; c < spec.parallel.virtual_stages; ++c)
    count += chunk_block_count(spec, c * spec.parallel.pipeline + stage);
  return count;
}

std::vector<std::int64_t> balanced_stage_layers(std::int64_t layers, std::int64_t chunks) {
  if (chunks < 1 || chunks > layers || layers % chunks == 0) return {};
  const std::int64_t base = layers / chunks;
  std::vector<std::int64_t> split(static_cast<std::size_t>(chunks), base + 1);
  std::int64_t short_chunks = chunks - layers % chunks;
  for (std::int64_t k = 0; short_chunks > 0; ++k) {
    const std::int64_t at = k % 2 == 0 ? k / 2 : chunks - 1 - k / 2;
    split[static_cast<std::size_t>(at)] = base;
    --short_chunks;
  }
  return split;
}

std::int64_t max_chunk_blocks(const WorkloadSpec& spec) {
  const auto& split = spec.parallel.stage_layers;
  if (split.empty()) return chunk_block_count(spec, 0);
  return *std::max_element(split.begin(), split.end());
}

}  // namespace simctl
