// `simctl run` on `task: inference`: the prefill and decode steps replayed
// through the executor. Each test fails if its mechanism is taken out: the
// KV-cache reads of decode, memory bandwidth bounding decode but not a long
// prefill, TP all-reduces per token, the roofline's compute-bound batch,
// and the request stream's queueing and determinism.
#include "sim/scenario/inference_run.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <sstream>

#include "config_rejection.hpp"
#include "sim/cli/command.hpp"
#include "sim/config/config_overrides.hpp"
#include "workloads/inference_trace.hpp"

using namespace simctl;
using simctl::testing::write_test_config;

namespace {

const std::string kSystems = std::string(SIMCTL_SOURCE_DIR) + "/configs/systems/";

std::string config(const std::string& system, const std::string& workload_lines) {
  return "name: inference run\nsystem: " + kSystems + system + "\nworkload:\n  task: inference\n" + workload_lines;
}

Scenario scenario(const std::string& name, const std::string& system, const std::string& lines) {
  return load_scenario(write_test_config("simctl_inference_run", name, config(system, lines)));
}

// Llama 3 8B in bf16 on one H100 SXM.
const std::string k8b = "  model: llama3-8b\n  precision: bf16\n";

std::string batch_lines(std::int64_t batch, std::int64_t prompt, std::int64_t output) {
  return "  batch: " + std::to_string(batch) + "\n  prompt_tokens: " + std::to_string(prompt) +
         "\n  output_tokens: " + std::to_string(output) + "\n";
}

// The shipped catalogue with the H100 SXM's HBM bandwidth replaced.
DeviceCatalogue catalogue_with_h100_bandwidth(const std::string& bandwidth) {
  DeviceCatalogue catalogue;
  std::vector<std::string> files;
  for (const auto& item : std::filesystem::directory_iterator(DeviceCatalogue::default_directory()))
    if (item.path().extension() == ".yaml") files.push_back(item.path().string());
  std::sort(files.begin(), files.end());
  for (const auto& file : files) {
    const ConfigNode root = ConfigNode::load_file(file);
    if (root.has("gpus"))
      apply_overrides(root.yaml(), "", {{"gpus.h100-sxm.memory.bandwidth", bandwidth, SourceLocation{"test", 1, 1}}});
    catalogue.add(root);
  }
  return catalogue;
}

}  // namespace

TEST_CASE("decode time grows with the KV cache it reads at batch 1", "[inference][run]") {
  const InferenceReport short_cache =
      run_inference(scenario("short", "h100_sxm_x1.yaml", k8b + batch_lines(1, 256, 2)));
  const InferenceReport long_cache = run_inference(scenario("long", "h100_sxm_x1.yaml", k8b + batch_lines(1, 7936, 2)));
  const Scenario s = scenario("any", "h100_sxm_x1.yaml", k8b + batch_lines(1, 256, 2));
  const TransformerSpec& m = s.workload.model;
  // 7680 more cached tokens: 2 (K, V) x 32 layers x 1024 x 2 B each.
  const double extra_bytes = 7680.0 * 2.0 * static_cast<double>(m.layers * m.kv_width()) * 2.0;
  const GpuSpec& h100 = s.catalogue.gpu("h100-sxm");
  const double extra_s = extra_bytes / (h100.memory_bandwidth.bytes_per_s * h100.compute.memory_efficiency);
  INFO("TPOT " << short_cache.tpot_s * 1e3 << " ms -> " << long_cache.tpot_s * 1e3 << " ms; bytes predict +"
               << extra_s * 1e3 << " ms");
  CHECK(long_cache.tpot_s - short_cache.tpot_s == Approx(extra_s).epsilon(0.15));
  // At batch 1 the step is the weights read once: 16 GB at HBM speed, a few ms.
  const double weights_s = 2.0 * static_cast<double>(m.parameter_count()) /
                           (h100.memory_bandwidth.bytes_per_s * h100.compute.memory_efficiency);
  CHECK(short_cache.tpot_s > weights_s);
  CHECK(short_cache.tpot_s < 1.3 * weights_s);
  CHECK(short_cache.first_decode.memory_bound_s > 0.8 * short_cache.first_decode.time_s);
}

TEST_CASE("twice the HBM bandwidth halves batch-1 decode but not a long prefill", "[inference][run]") {
  Scenario base = scenario("bw", "h100_sxm_x1.yaml", k8b + batch_lines(1, 8000, 2));
  const InferenceReport before = run_inference(base);
  base.catalogue = catalogue_with_h100_bandwidth("6.7 TB/s");
  const InferenceReport after = run_inference(base);
  INFO("TPOT " << before.tpot_s * 1e3 << " -> " << after.tpot_s * 1e3 << " ms; TTFT " << before.ttft_s * 1e3 << " -> "
               << after.ttft_s * 1e3 << " ms");
  CHECK(after.tpot_s < 0.6 * before.tpot_s);
  CHECK(after.ttft_s > 0.95 * before.ttft_s);  // 8000 prompt tokens: the GEMMs are compute-bound
  CHECK(before.prefill.compute_bound_s > 0.7 * before.prefill.time_s);
}

TEST_CASE("TP 8 adds two all-reduces per layer to every decode step", "[inference][run]") {
  const std::string lines = "  model: llama3-70b\n  precision: bf16\n" + batch_lines(8, 1024, 64);
  const Scenario tp8 = scenario("tp8", "dgx_h100.yaml", lines + "  parallel: {tensor: 8}\n");
  const InferenceReport report = run_inference(tp8);
  // Two per layer plus the embedding's, and the logits' all-gather.
  const Trace trace = build_inference_trace(tp8.workload, {InferencePhase::decode, 8, 1024});
  std::size_t all_reduces = 0;
  for (const Op& op : trace.ops(0)) {
    if (const auto* call = std::get_if<CollectiveCall>(&op.work); call && call->op == CollectiveOp::all_reduce)
      ++all_reduces;
  }
  CHECK(all_reduces == 2 * 80 + 1);
  CHECK(report.first_decode.tensor_comm_s > 0.0);
  // 161 all-reduces of 8 x 8192 x 2 B each: small messages, their latency.
  CHECK(report.first_decode.tensor_comm_s > 161 * 2e-6);
  CHECK(report.prefill.tensor_comm_s > 0.0);
  const Scenario tp4 = scenario("tp4", "dgx_h100.yaml", lines + "  parallel: {tensor: 4}\n");
  const InferenceReport four = run_inference(tp4);
  // Half the GPUs each read twice the weights: TP 4's step is slower, but
  // by less than 2x since the all-reduces do not halve.
  CHECK(four.tpot_s > report.tpot_s);
  CHECK(four.tpot_s < 2.0 * report.tpot_s);
}

TEST_CASE("the batch at which decode turns compute-bound falls out of the roofline", "[inference][run]") {
  Scenario s = scenario("ridge", "h100_sxm_x1.yaml", k8b + batch_lines(8, 1024, 128));
  const InferenceReport r = run_inference(s);
  REQUIRE(r.gemm_compute_bound_batch);
  // H100 SXM bf16: 989 TFLOP/s over 3.35 TB/s is a ridge near 300 FLOP/B,
  // and a decode GEMM does about one FLOP per weight byte per sequence; the
  // fitted efficiencies (GEMMs at these shapes well under peak, HBM near
  // its) move it by up to about 3x either way.
  INFO("GEMMs compute-bound at batch " << *r.gemm_compute_bound_batch);
  CHECK(*r.gemm_compute_bound_batch >= 96);
  CHECK(*r.gemm_compute_bound_batch <= 1024);
  // Attention reads the cache for 8 FLOPs per 2 bytes whatever the batch, so
  // at 1088 cached tokens the whole step turns compute-bound later, if ever.
  if (r.step_compute_bound_batch) CHECK(*r.step_compute_bound_batch > *r.gemm_compute_bound_batch);
  // Twice the bandwidth halves the byte time and so the ridge: about half
  // the batch (less where rows spill into a new tile: 65 rows cost what
  // 128 do).
  s.catalogue = catalogue_with_h100_bandwidth("6.7 TB/s");
  const InferenceReport faster = run_inference(s);
  REQUIRE(faster.gemm_compute_bound_batch);
  INFO("at 6.7 TB/s: batch " << *faster.gemm_compute_bound_batch);
  CHECK(*faster.gemm_compute_bound_batch < 0.7 * static_cast<double>(*r.gemm_compute_bound_batch));
  CHECK(*faster.gemm_compute_bound_batch > 0.25 * static_cast<double>(*r.gemm_compute_bound_batch));
  CHECK(r.largest_batch_that_fits > 64);
}

TEST_CASE("a static batch's figures hang together", "[inference][run]") {
  const InferenceReport r = run_inference(scenario("static", "h100_sxm_x1.yaml", k8b + batch_lines(16, 512, 128)));
  CHECK(r.e2e_s == Approx(r.ttft_s + 127 * r.tpot_s));
  CHECK(r.output_tokens_per_s == Approx(16 * 128 / r.e2e_s));
  CHECK(r.decode_tokens_per_s == Approx(16 / r.tpot_s));
  CHECK(r.last_decode.time_s > r.first_decode.time_s);  // 127 more cached tokens each
  CHECK(r.prefill_tokens_per_s == Approx(16 * 512 / r.ttft_s));
}

TEST_CASE("request streams: queueing shows in TTFT, and a seed gives one answer", "[inference][run][stream]") {
  auto stream = [](double rate, int seed) {
    return k8b + "  batch: 32\n  requests: {rate: " + std::to_string(rate) +
           ", count: 120, prompt_tokens: {min: 128, max: 1024}, output_tokens: {min: 16, max: 128}, seed: " +
           std::to_string(seed) + "}\n";
  };
  const InferenceReport slow = run_inference(scenario("slow", "h100_sxm_x1.yaml", stream(1.0, 1)));
  const InferenceReport busy = run_inference(scenario("busy", "h100_sxm_x1.yaml", stream(400.0, 1)));
  REQUIRE(slow.stream);
  REQUIRE(busy.stream);
  const StreamReport& a = *slow.stream;
  const StreamReport& b = *busy.stream;
  CHECK(a.ttft_s.p50 <= a.ttft_s.p90);
  CHECK(a.ttft_s.p90 <= a.ttft_s.p99);
  // One request a second rarely finds company; 400 a second fill the batch
  // and wait for room.
  CHECK(a.mean_batch < 3.0);
  CHECK(b.mean_batch > 20.0);
  CHECK(b.ttft_s.p90 > 5.0 * a.ttft_s.p90);
  CHECK(b.tpot_s.p50 > a.tpot_s.p50);
  CHECK(b.output_tokens_per_s > 5.0 * a.output_tokens_per_s);
  // Same seed, same stream, same figures; another seed, other arrivals.
  const InferenceReport again = run_inference(scenario("again", "h100_sxm_x1.yaml", stream(400.0, 1)));
  CHECK(render_inference_json(again).dump() == render_inference_json(busy).dump());
  const InferenceReport other = run_inference(scenario("other", "h100_sxm_x1.yaml", stream(400.0, 2)));
  CHECK(render_inference_json(other).dump() != render_inference_json(busy).dump());
}

TEST_CASE("simctl run prints an inference table with units and writes its JSON", "[inference][run][cli]") {
  const std::string path =
      write_test_config("simctl_inference_run", "cli", config("h100_sxm_x1.yaml", k8b + batch_lines(4, 256, 32)));
  const std::string json = path + ".json";
  std::ostringstream out, err;
  REQUIRE(run_main({"run", path, "--json", json}, out, err) == 0);
  CHECK_THAT(out.str(), Catch::Contains("time to first token (TTFT)"));
  CHECK_THAT(out.str(), Catch::Contains("ms"));
  CHECK_THAT(out.str(), Catch::Contains("tokens/s per GPU"));
  CHECK_THAT(out.str(), Catch::Contains("GEMMs turn compute-bound at batch"));
  std::ifstream file(json);
  const nlohmann::json j = nlohmann::json::parse(file);
  CHECK(j["static_batch"]["ttft_ms"].get<double>() > 0.0);
  CHECK(j["static_batch"]["tpot_ms"].get<double>() > 0.0);
  std::ostringstream out2, err2;
  CHECK(run_main({"run", path, "--trace", json + ".trace"}, out2, err2) == 2);
  CHECK_THAT(err2.str(), Catch::Contains("--trace is not available for an inference workload"));
}

TEST_CASE("PP 2 across two nodes: stages take turns and hand activations over the network", "[inference][run]") {
  const std::string lines = "  model: llama3-70b\n  precision: bf16\n" + batch_lines(8, 1024, 16);
  const InferenceReport one_node =
      run_inference(scenario("pp1", "dgx_h100_x4_ndr.yaml", lines + "  parallel: {tensor: 8}\n"));
  const Scenario pp = scenario("pp2", "dgx_h100_x4_ndr.yaml", lines + "  parallel: {tensor: 8, pipeline: 2}\n");
  const InferenceReport two_nodes = run_inference(pp);
  // Each stage holds half the layers but waits for the other: a token still
  // crosses every layer, plus the hop between nodes.
  CHECK(two_nodes.tpot_s > one_node.tpot_s);
  CHECK(two_nodes.first_decode.pipeline_s > 0.0);
  CHECK(two_nodes.prefill.pipeline_s > 0.0);
  // Stage 0 sends each TP rank's 1/8 of the 8 new tokens' activations.
  const Trace trace = build_inference_trace(pp.workload, {InferencePhase::decode, 8, 1024});
  const std::vector<Op>& stage0 = trace.programs[0];
  const auto send = std::find_if(stage0.begin(), stage0.end(), [](const Op& op) {
    const auto* t = std::get_if<PeerTransfer>(&op.work);
    return t && t->side == PeerTransfer::Side::send;
  });
  REQUIRE(send != stage0.end());
  CHECK(std::get<PeerTransfer>(send->work).bytes == Approx(8.0 * 8192 * 2 / 8));
  CHECK(trace.ranks.size() == 16);
}
