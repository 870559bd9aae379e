#pragma once
// Small run configs for plan-search tests, written to the temp folder: a
// search loads its config once per plan, so these keep the space small.
#include <filesystem>
#include <fstream>
#include <string>

namespace simctl::testing {

// Writes `text` (with SYSTEMS standing for the shipped configs/systems
// folder) to a fresh file named `name` in the temp folder.
inline std::string write_search_config(const std::string& name, std::string text) {
  const std::string systems = std::string(SIMCTL_SOURCE_DIR) + "/configs/systems";
  for (auto at = text.find("SYSTEMS"); at != std::string::npos; at = text.find("SYSTEMS")) {
    text.replace(at, 7, systems);
  }
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_search_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / name;
  std::ofstream(file) << text;
  return file.string();
}

// GPT-2 small on one DGX A100 at global batch 16: 12 heads and 12 layers
// leave TP and PP of 1, 2 and 4, a space of about a hundred plans.
inline std::string small_dense_config() {
  return write_search_config("gpt2_small.yaml", R"(name: search test, GPT-2 small on one DGX A100
system: SYSTEMS/dgx_a100.yaml
workload:
  model: gpt2-small
  parallel: {data: 2, tensor: 2, pipeline: 2}
  micro_batch: 2
  global_batch: 16
  precision: bf16
)");
}

// A small mixture of experts (4 experts, top-2) on one DGX H100. Three
// heads and three layers leave TP 1 and PP 1, so the space is EP, ZeRO,
// micro-batch and recompute (and stays small).
inline std::string small_moe_config() {
  return write_search_config("small_moe.yaml", R"(name: search test, a small MoE on one DGX H100
system: SYSTEMS/dgx_h100.yaml
workload:
  model: {layers: 3, hidden: 960, heads: 3, vocab: 32000, seq_len: 1024, ffn: 2048, experts: 4,
          experts_per_token: 2}
  parallel: {data: 8, expert: 4}
  micro_batch: 1
  global_batch: 8
  precision: bf16
)");
}

}  // namespace simctl::testing
