#include "sim/report/inference_report.hpp"

#include <cstdio>
#include <sstream>

namespace simctl {
namespace {

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

std::string ms(double seconds) { return fixed(seconds * 1e3, 3); }

void step_row(std::ostringstream& out, const char* label, const ServingStep& s) {
  char line[200];
  std::snprintf(line, sizeof line, "  %-14s %10s %10s %10s %10s %10s %10s   %s\n", label, ms(s.time_s).c_str(),
                ms(s.compute_bound_s).c_str(), ms(s.memory_bound_s).c_str(), ms(s.launch_bound_s).c_str(),
                ms(s.tensor_comm_s).c_str(), ms(s.pipeline_s).c_str(), s.what.c_str());
  out << line;
}

std::string batch_or_none(const std::optional<std::int64_t>& batch, std::int64_t limit) {
  return batch ? std::to_string(*batch) : "none up to " + std::to_string(limit);
}

void percentile_row(std::ostringstream& out, const char* label, const Percentiles& p) {
  char line[160];
  std::snprintf(line, sizeof line, "  %-22s %10s %10s %10s %10s\n", label, ms(p.p50).c_str(), ms(p.p90).c_str(),
                ms(p.p99).c_str(), ms(p.mean).c_str());
  out << line;
}

void render_stream(std::ostringstream& out, const StreamReport& s) {
  out << "\nRequest stream (continuous batching, at most " << s.max_batch << " sequences per replica)\n";
  out << "  " << s.requests << " requests at " << fixed(s.rate_per_s, 3) << " /s (seed " << s.seed << "), served in "
      << fixed(s.duration_s, 3) << " s; " << s.iterations << " iterations, mean decode batch " << fixed(s.mean_batch, 1)
      << "\n";
  out << "  output throughput      " << fixed(s.output_tokens_per_s, 1) << " tokens/s (system)\n";
  out << "  latency [ms]                  p50        p90        p99       mean\n";
  percentile_row(out, "time to first token", s.ttft_s);
  percentile_row(out, "time per output token", s.tpot_s);
  percentile_row(out, "end to end", s.e2e_s);
}

nlohmann::json step_json(const ServingStep& s) {
  return {{"what", s.what},
          {"time_ms", s.time_s * 1e3},
          {"compute_bound_ms", s.compute_bound_s * 1e3},
          {"memory_bound_ms", s.memory_bound_s * 1e3},
          {"launch_bound_ms", s.launch_bound_s * 1e3},
          {"exposed_tensor_comm_ms", s.tensor_comm_s * 1e3},
          {"pipeline_ms", s.pipeline_s * 1e3}};
}

nlohmann::json percentiles_json(const Percentiles& p) {
  return {{"p50_ms", p.p50 * 1e3}, {"p90_ms", p.p90 * 1e3}, {"p99_ms", p.p99 * 1e3}, {"mean_ms", p.mean * 1e3}};
}

nlohmann::json optional_batch(const std::optional<std::int64_t>& b) { return b ? nlohmann::json(*b) : nullptr; }

}  // namespace

std::string render_inference_text(const InferenceReport& r) {
  std::ostringstream out;
  out << "System    " << r.labels.system << "\n";
  out << "Workload  " << r.labels.workload << "\n\n";
  const double gpus = static_cast<double>(r.gpus);
  if (r.prompt_tokens > 0) {
    out << "Static batch: " << r.batch << (r.batch == 1 ? " sequence" : " sequences") << " per replica x " << r.replicas
        << " replica" << (r.replicas == 1 ? "" : "s") << ", " << r.prompt_tokens << " prompt + " << r.output_tokens
        << " output tokens each\n";
    out << "  time to first token (TTFT)    " << ms(r.ttft_s) << " ms\n";
    out << "  time per output token (TPOT)  "
        << (r.output_tokens > 1
                ? ms(r.tpot_s) + " ms (mean over " + std::to_string(r.output_tokens - 1) + " decode steps)"
                : std::string("n/a (one output token)"))
        << "\n";
    out << "  end-to-end latency            " << ms(r.e2e_s) << " ms\n";
    out << "  output throughput             " << fixed(r.output_tokens_per_s, 1) << " tokens/s (system), "
        << fixed(r.output_tokens_per_s / gpus, 1) << " tokens/s per GPU (prefill included)\n";
    if (r.output_tokens > 1) {
      out << "  decode throughput             " << fixed(r.decode_tokens_per_s, 1) << " tokens/s (system), "
          << fixed(r.decode_tokens_per_s / gpus, 1) << " tokens/s per GPU\n";
    }
    out << "  prefill throughput            " << fixed(r.prefill_tokens_per_s, 1) << " prompt tokens/s (system)\n\n";
    out << "Steps [ms]            time    compute     memory     launch    TP comm   PP/stage\n";
    step_row(out, "prefill", r.prefill);
    if (r.output_tokens > 1) {
      step_row(out, "first decode", r.first_decode);
      step_row(out, "last decode", r.last_decode);
    }
    out << "\n";
  }
  out << "Decode roofline at " << r.roofline_context << " cached tokens (" << r.dtype << " weights, "
      << r.kv_cache_dtype << " KV cache)\n";
  out << "  GEMMs turn compute-bound at batch     " << batch_or_none(r.gemm_compute_bound_batch, r.batch_search_limit)
      << "\n";
  out << "  whole step (with attention) at batch  " << batch_or_none(r.step_compute_bound_batch, r.batch_search_limit)
      << (r.step_compute_bound_batch ? "" : " (reading the KV cache keeps it memory-bound)") << "\n";
  out << "  largest batch that fits in memory     " << r.largest_batch_that_fits << " (" << fixed(r.gpu_memory_gib, 1)
      << " GiB per GPU; at batch " << r.batch << ": weights " << fixed(r.weights_gib_per_gpu, 1) << " GiB, KV cache "
      << fixed(r.kv_cache_gib_per_gpu, 1) << " GiB)\n";
  if (r.stream) render_stream(out, *r.stream);
  return out.str();
}

nlohmann::json render_inference_json(const InferenceReport& r) {
  nlohmann::json j;
  j["system"] = r.labels.system;
  j["workload"] = r.labels.workload;
  j["task"] = "inference";
  j["gpus"] = r.gpus;
  j["replicas"] = r.replicas;
  j["batch"] = r.batch;
  j["dtype"] = r.dtype;
  j["kv_cache_dtype"] = r.kv_cache_dtype;
  if (r.prompt_tokens > 0) {
    const double gpus = static_cast<double>(r.gpus);
    j["static_batch"] = {{"prompt_tokens", r.prompt_tokens},
                         {"output_tokens", r.output_tokens},
                         {"ttft_ms", r.ttft_s * 1e3},
                         {"tpot_ms", r.output_tokens > 1 ? nlohmann::json(r.tpot_s * 1e3) : nlohmann::json(nullptr)},
                         {"e2e_latency_ms", r.e2e_s * 1e3},
                         {"output_tokens_per_s", r.output_tokens_per_s},
                         {"output_tokens_per_s_per_gpu", r.output_tokens_per_s / gpus},
                         {"decode_tokens_per_s", r.decode_tokens_per_s},
                         {"decode_tokens_per_s_per_gpu", r.decode_tokens_per_s / gpus},
                         {"prefill_tokens_per_s", r.prefill_tokens_per_s},
                         {"prefill", step_json(r.prefill)}};
    if (r.output_tokens > 1) {
      j["static_batch"]["first_decode"] = step_json(r.first_decode);
      j["static_batch"]["last_decode"] = step_json(r.last_decode);
    }
  }
  j["decode_roofline"] = {{"cached_tokens", r.roofline_context},
                          {"gemm_compute_bound_batch", optional_batch(r.gemm_compute_bound_batch)},
                          {"step_compute_bound_batch", optional_batch(r.step_compute_bound_batch)},
                          {"batch_search_limit", r.batch_search_limit},
                          {"largest_batch_that_fits", r.largest_batch_that_fits}};
  j["memory_per_gpu_gib"] = {
      {"weights", r.weights_gib_per_gpu}, {"kv_cache", r.kv_cache_gib_per_gpu}, {"capacity", r.gpu_memory_gib}};
  if (r.stream) {
    const StreamReport& s = *r.stream;
    j["request_stream"] = {{"requests", s.requests},
                           {"rate_per_s", s.rate_per_s},
                           {"seed", s.seed},
                           {"max_batch", s.max_batch},
                           {"duration_s", s.duration_s},
                           {"iterations", s.iterations},
                           {"mean_decode_batch", s.mean_batch},
                           {"output_tokens_per_s", s.output_tokens_per_s},
                           {"ttft", percentiles_json(s.ttft_s)},
                           {"tpot", percentiles_json(s.tpot_s)},
                           {"e2e_latency", percentiles_json(s.e2e_s)}};
  }
  return j;
}

}  // namespace simctl
