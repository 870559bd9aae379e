// Memory per rank of `task: inference` workloads: Llama 2 70B on a DGX H100
// with TP 8, checked against the formulas worked out from the spec's fields,
// an out-of-memory batch reported with its numbers, and bad fields.
#include "workloads/inference_memory.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/cli/command.hpp"
#include "sim/config/config_error.hpp"
#include "sim/scenario/scenario.hpp"

using namespace simctl;

namespace {

constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;
const std::string kTp8 = "  task: inference\n  parallel: {tensor: 8}\n";

std::string llama_config(const std::string& extra_lines) {
  return "name: inference case\nsystem: " + std::string(SIMCTL_SOURCE_DIR) +
         "/configs/systems/dgx_h100.yaml\nworkload:\n  model: llama2-70b\n  precision: fp16\n" + extra_lines;
}

std::string write_config(const std::string& name, const std::string& text) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_inference_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << text;
  return file.string();
}

Scenario memory_scenario(const std::string& extra_lines) {
  return load_scenario(write_config("ok", llama_config(extra_lines)), ScenarioOptions{true, true, {}, false, nullptr});
}

double bytes_of(const StageMemory& row, const std::string& name) {
  for (const auto& i : row.items) {
    if (i.name == name) return i.bytes;
  }
  FAIL("no item " << name);
  return 0.0;
}

// The one-line ConfigError loading `lines` fails with under `options`.
std::string rejection(const std::string& lines, ScenarioOptions options = {true, true, {}}) {
  try {
    load_scenario(write_config("bad", llama_config(lines)), options);
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("accepted " << lines);
  return {};
}

}  // namespace

TEST_CASE("Llama 2 70B fp16 TP 8: weights and KV cache per rank", "[workloads][inference]") {
  const Scenario s = memory_scenario(kTp8 + "  batch: 1\n  context: 4096\n");
  REQUIRE(s.memory.size() == 1);
  const TransformerSpec& m = s.workload.model;
  const double fp16_bytes = 2, tp = 8;
  // Only the norms are replicated over TP, so the shard is P/8 within 0.1%.
  CHECK(bytes_of(s.memory[0], "weights") == Approx(68.98e9 * fp16_bytes / tp).epsilon(0.001));
  const double kv = 2.0 * m.layers * (m.kv_heads / tp) * m.head_dim() * 4096 * 1 * fp16_bytes;
  CHECK(bytes_of(s.memory[0], "kv_cache") == Approx(kv));
  // 160 MiB per rank: the 1.25 GiB of the whole cache, split over 8 ranks.
  CHECK(kv * tp == Approx(1.25 * kGiBytes));
  CHECK(bytes_of(s.memory[0], "activations/temporary") >= 1 * m.vocab / tp * fp16_bytes);
  CHECK(s.memory[0].total_bytes() < 80 * kGiBytes);
}

TEST_CASE("KV cache follows kv_cache_dtype, batch, context and the pipeline stage", "[workloads][inference]") {
  const Scenario s = memory_scenario(
      "  task: inference\n  parallel: {tensor: 4, pipeline: 2}\n  batch: 3\n  context: 1024\n  kv_cache_dtype: fp8\n");
  REQUIRE(s.memory.size() == 2);
  const TransformerSpec& m = s.workload.model;
  const double fp8_bytes = 1;
  const double kv = 2.0 * (m.layers / 2) * (m.kv_heads / 4) * m.head_dim() * 1024 * 3 * fp8_bytes;
  CHECK(bytes_of(s.memory[0], "kv_cache") == Approx(kv));
  CHECK(bytes_of(s.memory[1], "kv_cache") == Approx(kv));
  // The last stage holds the LM head, the first the embedding: equal here (untied).
  CHECK(bytes_of(s.memory[1], "weights") == Approx(bytes_of(s.memory[0], "weights")).epsilon(0.01));
}

TEST_CASE("an inference batch too large for an H100 is reported with its numbers", "[workloads][inference]") {
  // 512 sequences x 160 MiB of cache = 80 GiB, on top of 16 GiB of weights.
  const std::string path = write_config("oom", llama_config(kTp8 + "  batch: 512\n  context: 4096\n"));
  std::ostringstream out, err;
  CHECK(run_main({"memory", path}, out, err) == 1);
  INFO(out.str());
  CHECK_THAT(out.str(), Catch::Contains("OUT OF MEMORY: stage 0 (rank 0) needs 96.1 GiB (weights 16.1, kv_cache 80.0"));
  CHECK_THAT(out.str(), Catch::Contains("but its GPU has 80.0 GiB"));
}

TEST_CASE("bad inference fields name the field", "[workloads][inference]") {
  CHECK_THAT(rejection("  task: serve\n"), Catch::Contains("workload.task"));
  CHECK_THAT(rejection(kTp8 + "  batch: 0\n"), Catch::Contains("workload.batch"));
  const std::string too_long = rejection(kTp8 + "  context: 8192\n");
  CHECK_THAT(too_long, Catch::Contains("workload.context"));
  CHECK_THAT(too_long, Catch::Contains("seq_len 4096"));
  CHECK_THAT(rejection(kTp8 + "  micro_batch: 4\n"), Catch::Contains("micro_batch"));
  CHECK_THAT(rejection("  task: inference\n  parallel: {tensor: 16}\n"), Catch::Contains("workload.parallel.tensor"));
}

TEST_CASE("simctl run on an inference workload without lengths is a one-line ConfigError", "[workloads][inference]") {
  const std::string message = rejection(kTp8 + "  batch: 1\n", ScenarioOptions{});
  CHECK(message.find('\n') == std::string::npos);
  CHECK_THAT(message, Catch::Contains("simctl run needs the workload's prompt_tokens"));
  // `simctl memory` needs no lengths: the same config loads for it.
  CHECK(memory_scenario(kTp8 + "  batch: 1\n").memory.size() == 1);
}
