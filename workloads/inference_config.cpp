#include "workloads/inference_config.hpp"

#include <cstdio>

#include "sim/config/config_schema.hpp"
#include "workloads/bounded_integer.hpp"

namespace simctl {
namespace {

constexpr std::int64_t kMaxBatch = 65'536;
constexpr std::int64_t kMaxParallel = 1'024;
constexpr std::int64_t kMaxReplicas = 65'536;

DType parse_dtype(const ConfigNode& node) {
  return *dtype_from_string(node.as_choice({"bf16", "fp16", "fp32", "fp8"}));
}

// Transformers only: the KV cache is what an inference estimate is about.
TransformerSpec resolve_model(const ConfigNode& node, const ModelCatalogue& catalogue) {
  if (node.is_map()) return parse_transformer_spec(node, "inline");
  const std::string id = node.as_string();
  if (const TransformerSpec* found = catalogue.find(id)) return *found;
  node.fail("'" + id + "' is not a transformer in the catalogue; task: inference estimates transformers only");
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
         std::to_string(inf.context_tokens) + "-token context";
}

}  // namespace simctl
