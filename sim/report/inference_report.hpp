#pragma once
// What `simctl run` reports for an inference workload (`task: inference`):
// a static batch's prefill and decode replayed step by step, the latencies
// and throughputs they give, where decode turns compute-bound, and, for a
// request stream, latency percentiles under continuous batching. Plain
// data filled by sim/scenario/inference_run.hpp; rendered here as a
// terminal table and JSON (docs/output.md). Times in seconds.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "sim/report/step_report.hpp"

namespace simctl {

// One replayed serving step, with the mean rank's breakdown.
struct ServingStep {
  std::string what;  // "prefill 8 x 2048 tokens"
  double time_s = 0.0;
  double compute_bound_s = 0.0;  // kernels the FLOP side limits
  double memory_bound_s = 0.0;   // kernels the memory side limits
  double launch_bound_s = 0.0;   // kernels whose launch floor exceeds both
  double tensor_comm_s = 0.0;    // exposed TP collectives
  double pipeline_s = 0.0;       // exposed stage hand-offs and waiting on other stages
};

struct Percentiles {
  double p50 = 0.0, p90 = 0.0, p99 = 0.0, mean = 0.0;
};

// A request stream served with continuous batching.
struct StreamReport {
  std::int64_t requests = 0;
  double rate_per_s = 0.0;
  std::uint64_t seed = 0;
  std::int64_t max_batch = 0;        // sequences at once per replica
  double duration_s = 0.0;           // first arrival to last completion
  double output_tokens_per_s = 0.0;  // over the system
  double mean_batch = 0.0;           // sequences per decode iteration, averaged over iterations
  std::int64_t iterations = 0;       // engine iterations (each prefills arrivals, then decodes the running batch)
  Percentiles ttft_s, tpot_s, e2e_s;
};

struct InferenceReport {
  RunLabels labels;
  int gpus = 0;
  std::int64_t replicas = 1;
  std::int64_t batch = 0, prompt_tokens = 0, output_tokens = 0;
  std::string dtype, kv_cache_dtype;
  ServingStep prefill, first_decode, last_decode;
  double ttft_s = 0.0;
  double tpot_s = 0.0;                // mean over the output's decode steps; 0 when output_tokens is 1
  double e2e_s = 0.0;                 // ttft + (output - 1) x tpot
  double output_tokens_per_s = 0.0;   // over the system, static batch from prefill to last token
  double decode_tokens_per_s = 0.0;   // over the system, while decoding (batch / tpot)
  double prefill_tokens_per_s = 0.0;  // prompt tokens per second over the system
  std::optional<std::int64_t> gemm_compute_bound_batch;  // decode GEMMs' FLOP time ≥ their byte time
  std::optional<std::int64_t> step_compute_bound_batch;  // the whole decode step's (with attention)
  std::int64_t roofline_context = 0;                     // cached tokens the decode roofline was taken at
  std::int64_t largest_batch_that_fits = 0;              // by the memory estimate at this context
  std::int64_t batch_search_limit = 0;                   // batches searched: 1 … this
  double weights_gib_per_gpu = 0.0, kv_cache_gib_per_gpu = 0.0, gpu_memory_gib = 0.0;
  std::optional<StreamReport> stream;
};

std::string render_inference_text(const InferenceReport& report);
nlohmann::json render_inference_json(const InferenceReport& report);

}  // namespace simctl
