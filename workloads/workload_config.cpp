#include "workloads/workload_config.hpp"

#include "workloads/bounded_integer.hpp"

namespace simctl {
namespace {

// Every rank holds grad_accum copies of the pass's ops, so these bound the
// trace's size (a DGX SuperPOD-scale job is well inside them).
constexpr std::int64_t kMaxDataParallel = 65'536;
constexpr std::int64_t kMaxMicroBatch = 65'536;
constexpr std::int64_t kMaxGradAccum = 1'024;

DType parse_dtype_choice(const ConfigNode& node) {
  return *dtype_from_string(node.as_choice({"bf16", "fp16", "fp32"}));
}

TransformerSpec parse_model(const ConfigNode& node, const ModelCatalogue& catalogue) {
  if (node.is_map()) return parse_transformer_spec(node, "inline");
  const std::string id = node.as_string();
  if (const TransformerSpec* found = catalogue.find(id)) return *found;
  node.fail("unknown model '" + id + "'; valid ids are " + join_choices(catalogue.ids()) +
            ", or give an inline mapping of layers, hidden, heads, vocab, seq_len");
}

ParallelPlan parse_parallel(const ConfigNode& node) {
  node.expect_map();
  for (std::string_view later : {"tensor", "pipeline", "sequence", "expert"}) {
    if (node.has(later)) {
      node.child(later).fail(std::string(later) + " parallelism is not supported yet; only 'data' is");
    }
  }
  node.expect_keys({"data"});
  return ParallelPlan{bounded_positive_integer(node, "data", kMaxDataParallel)};
}

DdpOptions parse_ddp(const ConfigNode& node, DType precision) {
  node.expect_keys({"bucket_size", "first_bucket_size", "overlap", "grad_dtype"});
  DdpOptions ddp;
  ddp.grad_dtype = precision;
  ddp.bucket_size_bytes = node.size_or("bucket_size", ddp.bucket_size_bytes);
  if (ddp.bucket_size_bytes <= 0) node.child("bucket_size").fail("must be a positive size such as '25 MiB'");
  ddp.first_bucket_size_bytes = node.size_or("first_bucket_size", ddp.first_bucket_size_bytes);
  if (ddp.first_bucket_size_bytes <= 0) {
    node.child("first_bucket_size").fail("must be a positive size such as '1 MiB'");
  }
  ddp.overlap = node.bool_or("overlap", ddp.overlap);
  if (auto g = node.optional_child("grad_dtype")) ddp.grad_dtype = parse_dtype_choice(*g);
  return ddp;
}

// global = micro * data * accumulation steps, with a whole number of steps.
void set_batches(const ConfigNode& node, WorkloadSpec& spec) {
  spec.micro_batch = bounded_positive_integer(node, "micro_batch", kMaxMicroBatch);
  const std::int64_t per_pass = spec.micro_batch * spec.parallel.data;
  spec.global_batch = node.has("global_batch") ? node.positive_integer("global_batch") : per_pass;
  if (spec.global_batch % per_pass != 0) {
    node.child("global_batch")
        .fail("global_batch (" + std::to_string(spec.global_batch) +
              ") must be a multiple of micro_batch * data = " + std::to_string(spec.micro_batch) + " * " +
              std::to_string(spec.parallel.data) + " = " + std::to_string(per_pass));
  }
  spec.grad_accum = spec.global_batch / per_pass;
  if (spec.grad_accum > kMaxGradAccum) {
    node.child("global_batch")
        .fail("needs " + std::to_string(spec.grad_accum) + " gradient-accumulation steps; at most " +
              std::to_string(kMaxGradAccum) + " are supported");
  }
}

ActivationRecompute parse_recompute(const ConfigNode& node) {
  if (!node.has("activation_recompute")) return ActivationRecompute::none;
  return node.choice("activation_recompute", {"none", "full"}) == "full" ? ActivationRecompute::full
                                                                         : ActivationRecompute::none;
}

}  // namespace

WorkloadSpec parse_workload(const ConfigNode& node, const ModelCatalogue& catalogue) {
  node.expect_keys({"model", "parallel", "strategy", "micro_batch", "global_batch", "precision", "optimizer", "ddp",
                    "activation_recompute"});
  WorkloadSpec spec;
  spec.model = parse_model(node.child("model"), catalogue);
  if (auto p = node.optional_child("parallel")) spec.parallel = parse_parallel(*p);
  if (node.has("strategy")) node.choice("strategy", {"ddp"});
  set_batches(node, spec);
  if (auto p = node.optional_child("precision")) spec.precision = parse_dtype_choice(*p);
  if (node.has("optimizer")) node.choice("optimizer", {"adam"});
  spec.ddp.grad_dtype = spec.precision;
  if (auto d = node.optional_child("ddp")) spec.ddp = parse_ddp(*d, spec.precision);
  spec.recompute = parse_recompute(node);
  return spec;
}

WorkloadSpec parse_workload(const ConfigNode& node) {
  return parse_workload(node, ModelCatalogue::load_file(ModelCatalogue::default_path()));
}

WorkloadSpec load_workload_file(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  root.expect_keys({"workload"});
  return parse_workload(root.child("workload"));
}

}  // namespace simctl
