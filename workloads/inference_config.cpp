#include "workloads/inference_config.hpp"

#include <cstdio>

#include "sim/config/config_schema.hpp"
#include "workloads/bounded_integer.hpp"

namespace simctl {
namespace {

constexpr std::int64_t kMaxBatch = 65'536;
constexpr std::int64_t kMaxParallel = 1'024;
constexpr std::int64_t kMaxReplicas = 65'536;
constexpr std::int64_t kMaxTokens = 1'048'576;
constexpr std::int64_t kMaxRequests = 1'000'000;

DType parse_dtype(const ConfigNode& node) {
  return *dtype_from_string(node.as_choice({"bf16", "fp16", "fp32", "fp8"}));
}

// Transformers only: the KV cache is what an inference estimate is about.
TransformerSpec find_model(const ConfigNode& node, const ModelCatalogue& catalogue) {
  if (node.is_map()) return parse_transformer_spec(node, "inline");
  const std::string id = node.as_string();
  if (const TransformerSpec* found = catalogue.find(id)) return *found;
  node.fail("'" + id + "' is not a transformer in the catalogue; task: inference estimates transformers only");
}

// Serving here is prefill then token-by-token decode, which an encoder has not.
TransformerSpec resolve_model(const ConfigNode& node, const ModelCatalogue& catalogue) {
  TransformerSpec model = find_model(node, catalogue);
  if (!model.causal) {
    node.fail("model '" + model.name +
              "' is an encoder (attention_mask: bidirectional): task: inference models generation (prefill and "
              "decode) by a causal model; give a decoder");
  }
  return model;
}

ParallelPlan parse_plan(const ConfigNode& node) {
  node.expect_map();
  expect_section(node, "workload.parallel:inference");
  ParallelPlan plan;
  if (node.has("tensor")) plan.tensor = bounded_positive_integer(node, "tensor", kMaxParallel);
  if (node.has("pipeline")) plan.pipeline = bounded_positive_integer(node, "pipeline", kMaxParallel);
  if (node.has("data")) plan.data = bounded_positive_integer(node, "data", kMaxReplicas);
  return plan;
}

// TP splits whole query and KV heads and the MLP width; PP whole layers.
void check_plan(const ConfigNode& workload, const WorkloadSpec& spec) {
  const TransformerSpec& m = spec.model;
  const std::int64_t t = spec.parallel.tensor;
  if (m.heads % t != 0 || m.kv_heads % t != 0 || m.ffn % t != 0) {
    workload.child("parallel")
        .child("tensor")
        .fail("tensor = " + std::to_string(t) + " must divide the model's " + std::to_string(m.heads) + " heads, " +
              std::to_string(m.kv_heads) + " key/value heads and MLP width " + std::to_string(m.ffn));
  }
  if (m.layers % spec.parallel.pipeline != 0) {
    workload.child("parallel")
        .child("pipeline")
        .fail("pipeline = " + std::to_string(spec.parallel.pipeline) + " must divide the model's " +
              std::to_string(m.layers) + " layers");
  }
}

std::int64_t parse_context(const ConfigNode& workload, const TransformerSpec& m) {
  if (!workload.has("context")) return m.seq_len;
  const std::int64_t tokens = workload.positive_integer("context");
  if (tokens > m.seq_len) {
    workload.child("context").fail("context = " + std::to_string(tokens) + " tokens exceeds the model's seq_len " +
                                   std::to_string(m.seq_len) + "; use at most " + std::to_string(m.seq_len));
  }
  return tokens;
}

// One request length: an integer (every request alike) or {min, max}.
TokenRange parse_token_range(const ConfigNode& parent, std::string_view key) {
  const ConfigNode node = parent.child(key);
  if (!node.is_map()) {
    const std::int64_t tokens = bounded_positive_integer(parent, key, kMaxTokens);
    return TokenRange{tokens, tokens};
  }
  expect_section(node, "workload.requests.<length>");
  const TokenRange range{bounded_positive_integer(node, "min", kMaxTokens),
                         bounded_positive_integer(node, "max", kMaxTokens)};
  if (range.max < range.min) {
    node.child("max").fail("max = " + std::to_string(range.max) + " is below min = " + std::to_string(range.min));
  }
  return range;
}

// Prompt plus output must fit the model's context window.
void check_fits_window(const ConfigNode& output, std::int64_t prompt, std::int64_t generated,
                       const TransformerSpec& m) {
  if (prompt + generated <= m.seq_len) return;
  output.fail("prompt (" + std::to_string(prompt) + ") + output (" + std::to_string(generated) +
              ") tokens exceed the model's seq_len " + std::to_string(m.seq_len) + "; keep their sum at most " +
              std::to_string(m.seq_len));
}

std::int64_t parse_prompt(const ConfigNode& node, std::string_view key, const TransformerSpec& m) {
  const std::int64_t tokens = node.positive_integer(key);
  if (tokens >= m.seq_len) {
    node.child(key).fail(std::string(key) + " = " + std::to_string(tokens) +
                         " is longer than the model's context (seq_len " + std::to_string(m.seq_len) +
                         ", which must also hold the output); use at most " + std::to_string(m.seq_len - 1));
  }
  return tokens;
}

RequestStream parse_requests(const ConfigNode& node, const TransformerSpec& m) {
  node.expect_map();
  expect_section(node, "workload.requests");
  RequestStream r;
  r.rate_per_s = node.number("rate");
  if (!(r.rate_per_s > 0.0) || r.rate_per_s > 1e9) {
    node.child("rate").fail("rate must be a number of requests per second > 0 (at most 1e9), got " +
                            node.child("rate").as_string());
  }
  r.count = bounded_positive_integer(node, "count", kMaxRequests);
  r.prompt_tokens = parse_token_range(node, "prompt_tokens");
  if (r.prompt_tokens.max >= m.seq_len) parse_prompt(node, "prompt_tokens", m);  // fails with the numbers
  r.output_tokens = parse_token_range(node, "output_tokens");
  check_fits_window(node.child("output_tokens"), r.prompt_tokens.max, r.output_tokens.max, m);
  if (node.has("seed")) r.seed = static_cast<std::uint64_t>(node.child("seed").as_integer());
  return r;
}

// The static batch's lengths, and the KV cache they need unless `context`
// says more.
void parse_lengths(const ConfigNode& workload, const TransformerSpec& m, InferenceSpec& inference) {
  if (workload.has("prompt_tokens")) inference.prompt_tokens = parse_prompt(workload, "prompt_tokens", m);
  if (workload.has("output_tokens")) {
    inference.output_tokens = bounded_positive_integer(workload, "output_tokens", kMaxTokens);
    check_fits_window(workload.child("output_tokens"), inference.prompt_tokens, inference.output_tokens, m);
  }
  if (auto r = workload.optional_child("requests")) inference.requests = parse_requests(*r, m);
  const std::int64_t needed = inference.requests
                                  ? inference.requests->prompt_tokens.max + inference.requests->output_tokens.max
                                  : inference.prompt_tokens + inference.output_tokens;
  if (!workload.has("context")) {
    if (needed > 0) inference.context_tokens = needed;
    return;
  }
  if (inference.context_tokens < needed) {
    workload.child("context").fail("context = " + std::to_string(inference.context_tokens) +
                                   " tokens cannot hold a prompt and its output (" + std::to_string(needed) +
                                   " tokens); use at least " + std::to_string(needed) + " or leave it out");
  }
}

std::string describe_lengths(const InferenceSpec& inf) {
  if (inf.requests) {
    const RequestStream& r = *inf.requests;
    auto range = [](const TokenRange& t) {
      return t.min == t.max ? std::to_string(t.min) : std::to_string(t.min) + "-" + std::to_string(t.max);
    };
    return ", " + std::to_string(r.count) + " requests (prompt " + range(r.prompt_tokens) + ", output " +
           range(r.output_tokens) + " tokens)";
  }
  if (inf.prompt_tokens == 0) return "";
  return ", prompt " + std::to_string(inf.prompt_tokens) + " + output " + std::to_string(inf.output_tokens) + " tokens";
}

}  // namespace

bool is_inference_task(const ConfigNode& workload) {
  if (!workload.is_map() || !workload.has("task")) return false;
  return workload.choice("task", {"training", "inference"}) == "inference";
}

WorkloadSpec parse_inference_workload(const ConfigNode& workload, const ModelCatalogue& catalogue) {
  expect_section(workload, "workload:inference");
  WorkloadSpec spec;
  spec.model = resolve_model(workload.child("model"), catalogue);
  if (auto p = workload.optional_child("parallel")) spec.parallel = parse_plan(*p);
  check_plan(workload, spec);
  if (auto p = workload.optional_child("precision")) spec.precision = parse_dtype(*p);
  InferenceSpec inference;
  if (workload.has("batch")) inference.batch = bounded_positive_integer(workload, "batch", kMaxBatch);
  inference.context_tokens = parse_context(workload, spec.model);
  parse_lengths(workload, spec.model, inference);
  inference.kv_cache_dtype = spec.precision;
  if (auto d = workload.optional_child("kv_cache_dtype")) inference.kv_cache_dtype = parse_dtype(*d);
  spec.micro_batch = inference.batch;
  spec.global_batch = inference.batch;
  spec.inference = inference;
  return spec;
}

std::string describe_inference(const WorkloadSpec& spec, int ranks) {
  const ParallelPlan& p = spec.parallel;
  const InferenceSpec& inf = *spec.inference;
  char params[32];
  std::snprintf(params, sizeof params, "%.2f B params", static_cast<double>(spec.model.parameter_count()) / 1e9);
  return spec.model.name + " (" + params + "), inference TP " + std::to_string(p.tensor) + " x PP " +
         std::to_string(p.pipeline) + " x " + std::to_string(p.data) + (p.data == 1 ? " replica" : " replicas") +
         " = " + std::to_string(ranks) + " GPUs, " + std::string(to_string(spec.precision)) + " weights, " +
         std::string(to_string(inf.kv_cache_dtype)) + " KV cache, batch " + std::to_string(inf.batch) + " x " +
         std::to_string(inf.context_tokens) + "-token context" + describe_lengths(inf);
}

}  // namespace simctl
