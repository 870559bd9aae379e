// Bad `task: inference` fields that `simctl run` reads: each error names the
// file and line, the field, and what would be valid.
#include <catch2/catch.hpp>

#include "config_rejection.hpp"

using namespace simctl;
using simctl::testing::load_rejection;
using simctl::testing::write_test_config;

namespace {

// `lines` go under `workload:`, from line 5 of the file.
std::string inference_rejection(const std::string& lines, const std::string& model = "llama3-8b") {
  const std::string text = "name: bad inference\nsystem: " + std::string(SIMCTL_SOURCE_DIR) +
                           "/configs/systems/h100_sxm_x1.yaml\nworkload:\n  task: inference\n  model: " + model + "\n" +
                           lines;
  return load_rejection(write_test_config("simctl_inference_errors", "bad", text));
}

}  // namespace

TEST_CASE("output_tokens 0 is refused on its line", "[inference][errors]") {
  const std::string e = inference_rejection("  prompt_tokens: 128\n  output_tokens: 0\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:7"));
  CHECK_THAT(e, Catch::Contains("workload.output_tokens"));
}

TEST_CASE("a prompt longer than the model's context is refused with both lengths", "[inference][errors]") {
  const std::string e = inference_rejection("  prompt_tokens: 9000\n  output_tokens: 16\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:6"));
  CHECK_THAT(e, Catch::Contains("workload.prompt_tokens"));
  CHECK_THAT(e, Catch::Contains("seq_len 8192"));
  CHECK_THAT(e, Catch::Contains("use at most 8191"));
}

TEST_CASE("a prompt and output past the window are refused on output_tokens", "[inference][errors]") {
  const std::string e = inference_rejection("  prompt_tokens: 8000\n  output_tokens: 500\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:7"));
  CHECK_THAT(e, Catch::Contains("workload.output_tokens"));
  CHECK_THAT(e, Catch::Contains("exceed the model's seq_len 8192"));
}

TEST_CASE("a context too small for prompt and output is refused", "[inference][errors]") {
  const std::string e = inference_rejection("  context: 1000\n  prompt_tokens: 900\n  output_tokens: 200\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:6"));
  CHECK_THAT(e, Catch::Contains("workload.context"));
  CHECK_THAT(e, Catch::Contains("use at least 1100"));
}

TEST_CASE("a batch that does not fit is refused with the numbers", "[inference][errors]") {
  // 1024 sequences x 8192 tokens x 128 KiB of K and V per token = 1 TiB.
  const std::string e = inference_rejection("  batch: 1024\n  prompt_tokens: 4096\n  output_tokens: 4096\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:6"));
  CHECK_THAT(e, Catch::Contains("workload.batch"));
  CHECK_THAT(e, Catch::Contains("out of memory"));
  CHECK_THAT(e, Catch::Contains("kv_cache 1024.0"));
  CHECK_THAT(e, Catch::Contains("but its GPU has 80.0 GiB"));
}

TEST_CASE("simctl run needs the lengths of what it serves", "[inference][errors]") {
  const std::string e = inference_rejection("  batch: 4\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:4"));  // the workload mapping, at its first key
  CHECK_THAT(e, Catch::Contains("prompt_tokens"));
  CHECK_THAT(e, Catch::Contains("requests"));
}

TEST_CASE("a mixture of experts is refused by simctl run", "[inference][errors]") {
  const std::string e = inference_rejection("  prompt_tokens: 128\n  output_tokens: 16\n", "mixtral-8x7b");
  CHECK_THAT(e, Catch::Contains("bad.yaml:5"));
  CHECK_THAT(e, Catch::Contains("workload.model"));
  CHECK_THAT(e, Catch::Contains("dense transformers only"));
}

TEST_CASE("bad request streams name the field", "[inference][errors]") {
  const std::string lengths = ", prompt_tokens: 128, output_tokens: 16";
  std::string e = inference_rejection("  requests: {rate: -2, count: 10" + lengths + "}\n");
  CHECK_THAT(e, Catch::Contains("bad.yaml:6"));
  CHECK_THAT(e, Catch::Contains("workload.requests.rate"));
  CHECK_THAT(e, Catch::Contains("> 0"));
  e = inference_rejection("  requests: {rate: 2, count: 0" + lengths + "}\n");
  CHECK_THAT(e, Catch::Contains("workload.requests.count"));
  e = inference_rejection("  requests: {rate: 2, count: 10, prompt_tokens: {min: 512, max: 128}, output_tokens: 16}\n");
  CHECK_THAT(e, Catch::Contains("workload.requests.prompt_tokens.max"));
  CHECK_THAT(e, Catch::Contains("below min = 512"));
  e = inference_rejection("  requests: {rate: 2, count: 10, prompt_tokens: 8192, output_tokens: 16}\n");
  CHECK_THAT(e, Catch::Contains("workload.requests.prompt_tokens"));
  CHECK_THAT(e, Catch::Contains("seq_len 8192"));
  e = inference_rejection(
      "  requests: {rate: 2, count: 10, prompt_tokens: 4096, output_tokens: {min: 1, max: 5000}}\n");
  CHECK_THAT(e, Catch::Contains("workload.requests.output_tokens"));
  e = inference_rejection("  requests: {rate: 2, count: 10, prompt_tokens: 128, output_tokens: 16, burst: 3}\n");
  CHECK_THAT(e, Catch::Contains("burst"));
}

// Serving splits whole layers evenly; stage_layers is a training field.
TEST_CASE("an uneven pipeline split is refused for serving", "[inference][errors]") {
  const std::string e =
      inference_rejection("  prompt_tokens: 128\n  output_tokens: 16\n  parallel: {pipeline: 1, stage_layers: [32]}\n");
  CHECK_THAT(e, Catch::Contains("workload.parallel.stage_layers"));
  CHECK_THAT(e, Catch::Contains("unknown field") && Catch::Contains("tensor, pipeline"));
}
