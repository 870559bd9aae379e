#include "workloads/workload_config.hpp"

#include <catch2/catch.hpp>
#include <functional>

using namespace simctl;

namespace {

const std::string kGood = R"(workload:
  model: gpt-1.3b
  parallel: {data: 8}
  strategy: ddp
  micro_batch: 4
  global_batch: 64
  precision: bf16
  optimizer: adam
  ddp: {bucket_size: 25 MiB, overlap: true}
  activation_recompute: none
)";

WorkloadSpec parse_text(const std::string& text) {
  return parse_workload(ConfigNode::load_string(text, "w.yaml").child("workload"));
}

// Replaces the first line starting with `key:` (after indentation) by `line`.
std::string with_line(const std::string& key, const std::string& line) {
  std::string text = kGood;
  const auto at = text.find("  " + key + ":");
  REQUIRE(at != std::string::npos);
  const auto end = text.find('\n', at);
  return text.replace(at, end - at, line);
}

ConfigError config_error_of(const std::string& text) {
  try {
    parse_text(text);
  } catch (const ConfigError& e) {
    return e;
  }
  FAIL("expected a ConfigError for:\n" << text);
  throw;  // unreachable
}

}  // namespace

TEST_CASE("torchtitan's checkpointing modes parse", "[workloads][config]") {
  const auto op = parse_text(with_line("activation_recompute", "  activation_recompute: selective_op"));
  CHECK(op.recompute == ActivationRecompute::selective_op);
  CHECK(op.recompute_every == 1);
  const auto every =
      parse_text(with_line("activation_recompute", "  activation_recompute: full\n  activation_recompute_every: 2"));
  CHECK(every.recompute == ActivationRecompute::full);
  CHECK(every.recompute_every == 2);
  const auto block =
      parse_text(with_line("activation_recompute", "  activation_recompute: full\n  activation_recompute_layers: 5"));
  CHECK(block.recompute_layers == 5);
}

TEST_CASE("a DDP workload parses with derived accumulation", "[workloads][config]") {
  const auto spec = parse_text(kGood);
  CHECK(spec.model.name == "gpt-1.3b");
  CHECK(spec.model.layers == 24);
  CHECK(spec.parallel.data == 8);
  CHECK(spec.micro_batch == 4);
  CHECK(spec.global_batch == 64);
  CHECK(spec.grad_accum == 2);
  CHECK(spec.precision == DType::bf16);
  CHECK(spec.ddp.bucket_size_bytes == 25 * kMiB);
  CHECK(spec.ddp.first_bucket_size_bytes == 1 * kMiB);
  CHECK(spec.ddp.grad_dtype == DType::bf16);
  CHECK(spec.ddp.overlap);
  CHECK(spec.recompute == ActivationRecompute::none);
}

TEST_CASE("defaults: global batch is one pass, gradients in the compute dtype", "[workloads][config]") {
  const auto spec = parse_text("workload: {model: gpt2-small, parallel: {data: 2}, micro_batch: 3, precision: fp16}\n");
  CHECK(spec.global_batch == 6);
  CHECK(spec.grad_accum == 1);
  CHECK(spec.ddp.grad_dtype == DType::fp16);
  CHECK(spec.ddp.bucket_size_bytes == 25 * kMiB);
}

TEST_CASE("an inline model mapping is accepted", "[workloads][config]") {
  const auto spec =
      parse_text(with_line("model", "  model: {layers: 2, hidden: 64, heads: 4, vocab: 100, seq_len: 32}"));
  CHECK(spec.model.name == "inline");
  CHECK(spec.model.ffn == 256);
  CHECK(spec.model.kv_heads == 4);
}

TEST_CASE("the shipped DGX H100 workload config loads", "[workloads][config]") {
  const auto spec = load_workload_file(std::string(SIMCTL_SOURCE_DIR) + "/configs/workloads/gpt_1p3b_ddp.yaml");
  CHECK(spec.model.name == "gpt-1.3b");
  CHECK(spec.parallel.data == 8);
  CHECK(spec.global_batch == spec.micro_batch * spec.parallel.data * spec.grad_accum);
}

TEST_CASE("bad workload inputs name their field", "[workloads][config]") {
  struct Case {
    std::string text, field, says;
  };
  const std::vector<Case> cases = {
      {with_line("model", "  model: gpt-9b"), "workload.model", "gpt-1.3b"},
      {with_line("global_batch", "  global_batch: 60"), "workload.global_batch", "multiple of micro_batch * data"},
      {with_line("micro_batch", "  micro_batch: 0"), "workload.micro_batch", "positive"},
      {with_line("micro_batch", "  micro_batch: -2"), "workload.micro_batch", "positive"},
      {with_line("parallel", "  parallel: {data: 0}"), "workload.parallel.data", "positive"},
      {with_line("parallel", "  parallel: {data: 4, tensor: 3}"), "workload.parallel.tensor",
       "must divide the model's 16 attention heads"},
      {with_line("parallel", "  parallel: {data: 4, pipeline: 5}"), "workload.parallel.pipeline",
       "must divide the model's 24 layers"},
      {with_line("parallel", "  parallel: {data: 4, pipeline: 4, virtual_stages: 4, schedule: interleaved}"),
       "workload.parallel.virtual_stages", "must divide the model's 24 layers"},
      {with_line("parallel", "  parallel: {data: 4, pipeline: 4, schedule: interleaved}"), "workload.parallel.schedule",
       "go together"},
      {with_line("parallel", "  parallel: {data: 8, pipeline: 4, schedule: interleaved, virtual_stages: 2}"),
       "workload.parallel.schedule", "a multiple of pipeline"},
      {with_line("parallel", "  parallel: {data: 4, schedule: pipedream}"), "workload.parallel.schedule", "1f1b"},
      {with_line("parallel", "  parallel: {data: 4, order: [tensor, tensor, data]}"), "workload.parallel.order[1]",
       "twice"},
      {with_line("parallel", "  parallel: {data: 2, gpus: [0, 1, 2]}"), "workload.parallel.gpus",
       "one GPU index per rank"},
      {with_line("parallel", "  parallel: {data: 2, gpus: [3, 3]}"), "workload.parallel.gpus[1]", "two ranks"},
      {with_line("strategy", "  strategy: zero4"), "workload.strategy", "fsdp"},
      {"workload: {model: gpt-1.3b, parallel: {data: 4, tensor: 2}, strategy: data_parallel, micro_batch: 1}\n",
       "workload.strategy", "data parallelism only"},
      {with_line("precision", "  precision: int8"), "workload.precision", "bf16"},
      {with_line("optimizer", "  optimizer: sgd"), "workload.optimizer", "adam"},
      {with_line("ddp", "  ddp: {bucket_size: 0 MiB}"), "workload.ddp.bucket_size", "positive"},
      {with_line("ddp", "  ddp: {bucket_size: 25 MB/s}"), "workload.ddp.bucket_size", "not a size"},
      {with_line("ddp", "  ddp: {buckt_size: 25 MiB}"), "workload.ddp.buckt_size", "unknown field"},
      {with_line("activation_recompute", "  activation_recompute: some"), "workload.activation_recompute", "selective"},
      {with_line("activation_recompute", "  activation_recompute: some"), "workload.activation_recompute",
       "selective_op"},
      {with_line("activation_recompute", "  activation_recompute: selective\n  activation_recompute_every: 2"),
       "workload.activation_recompute_every", "needs activation_recompute: full"},
      {with_line("activation_recompute", "  activation_recompute: full\n  activation_recompute_every: 25"),
       "workload.activation_recompute_every", "must be 1 ... 24 (the model's layers), not 25"},
      {with_line("activation_recompute", "  activation_recompute: full\n  activation_recompute_every: 0"),
       "workload.activation_recompute_every", "positive"},
      {with_line("activation_recompute", "  activation_recompute: selective\n  activation_recompute_layers: 2"),
       "workload.activation_recompute_layers", "needs activation_recompute: full"},
      {with_line("activation_recompute",
                 "  activation_recompute: full\n  activation_recompute_layers: 2\n  activation_recompute_every: 2"),
       "workload.activation_recompute_layers", "cannot be given with activation_recompute_every"},
      {"workload: {model: gpt-1.3b, parallel: {data: 1, pipeline: 4}, micro_batch: 1, global_batch: 4, "
       "activation_recompute: full, activation_recompute_layers: 7}\n",
       "workload.activation_recompute_layers", "must be 1 ... 6 (the most blocks a pipeline chunk holds"},
      {"workload: {model: mixtral-8x7b, parallel: {data: 2}, micro_batch: 1, activation_recompute: selective_op}\n",
       "workload.activation_recompute", "dense blocks only"},
      {with_line("activation_recompute", "  activation_recompute: selective_op\n  attention: unfused"),
       "workload.activation_recompute", "fused attention kernel's output"},
      {with_line("optimizer", "  optimiser: adam"), "workload.optimiser", "unknown field"},
      {with_line("model", "  model: {layers: 2, hidden: 66, heads: 4, vocab: 100, seq_len: 32}"),
       "workload.model.heads", "divisible"},
      {with_line("model", "  model: {layers: 2, hidden: 64, heads: 4, kv_heads: 3, vocab: 100, seq_len: 32}"),
       "workload.model.kv_heads", "must divide heads"},
      {with_line("model", "  model: {layers: 2, hidden: 64, heads: 4, vocab: 100, seq_len: 32, norm: batchnorm}"),
       "workload.model.norm", "rmsnorm"},
      {"workload: {model: llama3-8b, parallel: {data: 1, tensor: 16}, micro_batch: 1}\n", "workload.parallel.tensor",
       "must divide the model's 8 key/value heads"},
      {with_line("model", "  model: {layers: 2, hidden: 64, heads: 4, vocab: 100}"), "workload.model.seq_len",
       "seq_len"},  // the missing field itself
      {with_line("model", "  model: {layers: 2, hidden: 4000000000000, heads: 4, vocab: 100, seq_len: 32}"),
       "workload.model.hidden", "at most"},
      {with_line("global_batch", "  global_batch: 3200000"), "workload.global_batch", "micro-batches per step"},
      {with_line("micro_batch", "  micro_batch: many"), "workload.micro_batch",
       "integer"},  // Mixture of experts: model fields, then expert parallelism.
      {with_line("model", "  model: {layers: 2, hidden: 64, heads: 4, vocab: 100, seq_len: 32, experts: 4}"),
       "workload.model.experts", "needs experts_per_token"},
      {with_line(
           "model",
           "  model: {layers: 2, hidden: 64, heads: 4, vocab: 100, seq_len: 32, experts: 4, experts_per_token: 5}"),
       "workload.model.experts_per_token", "must be from 1 to experts (4)"},
      {with_line("model", "  model: {layers: 2, hidden: 64, heads: 4, vocab: 100, seq_len: 32, experts: -1}"),
       "workload.model.experts", "must be 0 or 1 (a dense MLP) or a number of experts from 2"},
      {with_line("model", "  model: {layers: 2, hidden: 64, heads: 4, vocab: 100, seq_len: 32, expert_ffn: 128}"),
       "workload.model.expert_ffn", "set experts (> 1) too"},
      {with_line("parallel", "  parallel: {data: 8, expert: 2}"), "workload.parallel.expert",
       "needs a mixture-of-experts model, but 'gpt-1.3b' is dense"},
      {"workload: {model: mixtral-8x7b, parallel: {data: 6, expert: 3}, micro_batch: 1}\n", "workload.parallel.expert",
       "must divide the model's 8 experts; valid: 1, 2, 4, 8"},
      {"workload: {model: mixtral-8x7b, parallel: {data: 6, expert: 4}, micro_batch: 1}\n", "workload.parallel.expert",
       "must divide data = 6 (expert parallelism subdivides the data-parallel ranks); "
       "valid: 1, 2"},
      {"workload: {model: mixtral-8x7b, parallel: {data: 4, expert: 4}, strategy: fsdp, micro_batch: 1}\n",
       "workload.strategy", "use ddp, zero1 or zero2"},
      {"workload: {model: mixtral-8x7b, parallel: {data: 2, tensor: 2}, micro_batch: 1}\n", "workload.parallel.tensor",
       "needs sequence: true"},
      // TP communication overlap needs something to overlap.
      {"workload: {model: gpt-1.3b, parallel: {data: 1, tensor: 8, tp_comm_overlap: true}, micro_batch: 1}\n",
       "workload.parallel.tp_comm_overlap",
       "needs tensor > 1 and sequence: true (this plan has tensor = 8, sequence: false)"},
      {"workload: {model: gpt-1.3b, parallel: {data: 8, sequence: true, tp_comm_overlap: true}, micro_batch: 1}\n",
       "workload.parallel.tp_comm_overlap", "this plan has tensor = 1, sequence: true"},
      {"workload: {model: gpt-1.3b, parallel: {data: 8, tp_comm_overlap: yes please}, micro_batch: 1}\n",
       "workload.parallel.tp_comm_overlap", "true"},
      // Under fp8 the overlap's buffers gather fp8.
      {"workload: {model: gpt-1.3b, precision: fp8, fp8: {tp_all_gather: false}, parallel: {data: 1, tensor: 8, "
       "sequence: true, tp_comm_overlap: true}, micro_batch: 1}\n",
       "workload.fp8.tp_all_gather", "userbuffers all-gather the fp8 inputs"},
      // AsyncTP is torch.compile's pass over TP + SP collectives.
      {"workload: {model: llama3-8b, framework: torchtitan, compile: true, parallel: {data: 1, tensor: 8, async_tp: "
       "true}, micro_batch: 1}\n",
       "workload.parallel.async_tp", "needs tensor > 1 and sequence: true (this plan has tensor = 8, sequence: false)"},
      {"workload: {model: llama3-8b, framework: torchtitan, parallel: {data: 1, tensor: 8, sequence: true, async_tp: "
       "true}, micro_batch: 1}\n",
       "workload.parallel.async_tp", "needs compile: true"},
      {"workload: {model: llama3-8b, framework: torchtitan, compile: true, parallel: {data: 1, tensor: 8, sequence: "
       "true, async_tp: true, tp_comm_overlap: true}, micro_batch: 1}\n",
       "workload.parallel.async_tp", "set one of them to false"},
      {"workload: {model: llama3-8b, framework: torchtitan, compile: true, parallel: {data: 1, tensor: 8, sequence: "
       "true, async_tp: true}, micro_batch: 1, finetune: {method: lora, rank: 16}}\n",
       "workload.parallel.async_tp", "modelled for full training"},
      {"workload: {model: llama3-8b, parallel: {data: 8, async_tp: maybe}, micro_batch: 1}\n",
       "workload.parallel.async_tp", "true"},
      {"workload: {model: llama3-8b, framework: torchtitan, compile: true, precision: fp8, fp8: {tp_all_gather: "
       "false}, parallel: {data: 1, tensor: 8, sequence: true, async_tp: true}, micro_batch: 1}\n",
       "workload.fp8.tp_all_gather", "AsyncTP's fused scaled matmuls all-gather the fp8 inputs"},
      {"workload: {model: llama3-8b, parallel: {data: 1, context: 2, context_algorithm: torch}, micro_batch: 1}\n",
       "workload.parallel.context_algorithm", "torch_all_gather"},
      {with_line("ddp", "  ddp: {overlap_param_gather: true}"), "workload.ddp.overlap_param_gather",
       "needs strategy zero1 or zero2 (Megatron's --use-distributed-optimizer), not ddp"},
      {"workload: {model: gpt-1.3b, parallel: {data: 8}, strategy: fsdp, micro_batch: 1, ddp: {overlap_param_gather: "
       "true}}\n",
       "workload.ddp.overlap_param_gather", "gathers each unit's weights before its forward already"},
      {"workload: {model: gpt-1.3b, parallel: {data: 8}, strategy: zero1, micro_batch: 1, cuda_graphs: true, "
       "offload: {optimizer: cpu}}\n",
       "workload.cuda_graphs", "cannot capture the CPU optimizer step"},
      {"workload: {model: gpt-1.3b, parallel: {data: 8}, strategy: data_parallel, micro_batch: 1, cuda_graphs: true}\n",
       "workload.cuda_graphs", "use strategy: ddp with cuda_graphs: true"},
      {"workload: {model: gpt-1.3b, parallel: {data: 8}, micro_batch: 1, cuda_graphs: sometimes}\n",
       "workload.cuda_graphs", "true"},
  };
  for (const auto& c : cases) {
    INFO(c.text);
    const ConfigError e = config_error_of(c.text);
    CHECK(e.field() == c.field);
    CHECK_THAT(std::string(e.what()), Catch::Contains(c.says));
    CHECK_THAT(std::string(e.what()), Catch::Contains("w.yaml:"));
  }
}

TEST_CASE("tensor parallelism splits a GQA model's KV heads", "[workloads][config]") {
  const auto spec = parse_text("workload: {model: llama3-70b, parallel: {data: 1, tensor: 8}, micro_batch: 1}\n");
  CHECK(spec.model.kv_heads == 8);
  CHECK(spec.model.gated_mlp);
  CHECK(spec.model.norm == NormKind::rms_norm);
  CHECK(spec.model.position == PositionKind::rope);
  CHECK_FALSE(spec.model.tied_embeddings);
}

TEST_CASE("tp_comm_overlap: set in the config, or the framework's default where SP and TP allow",
          "[workloads][config]") {
  const auto set = parse_text(
      "workload: {model: gpt-1.3b, parallel: {data: 1, tensor: 8, sequence: true, tp_comm_overlap: true}, "
      "micro_batch: 1}\n");
  CHECK(set.parallel.tp_comm_overlap);
  // Megatron-LM's default is off (opt-in --tp-comm-overlap, and the 2021-22
  // runs its entry is fitted to predate it).
  const auto megatron = parse_text(
      "workload: {model: gpt-1.3b, parallel: {data: 1, tensor: 8, sequence: true}, micro_batch: 1, "
      "framework: megatron-lm}\n");
  CHECK_FALSE(megatron.parallel.tp_comm_overlap);
  const auto off = parse_text(
      "workload: {model: gpt-1.3b, parallel: {data: 1, tensor: 8, sequence: true, tp_comm_overlap: false}, "
      "micro_batch: 1}\n");
  CHECK_FALSE(off.parallel.tp_comm_overlap);
}
