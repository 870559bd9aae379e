#include "workloads/workload_config.hpp"

#include <algorithm>

#include "sim/config/config_schema.hpp"
#include "sim/config/data_root.hpp"
#include "workloads/bounded_integer.hpp"
#include "workloads/cnn_config.hpp"
#include "workloads/finetune_config.hpp"
#include "workloads/inference_config.hpp"
#include "workloads/layer_split.hpp"
#include "workloads/task_head_config.hpp"

namespace simctl {
namespace {

// Every rank holds grad_accum copies of the pass's ops, so these bound the
// trace's size (a DGX SuperPOD-scale job is well inside them).
constexpr std::int64_t kMaxDataParallel = 65'536;
constexpr std::int64_t kMaxMicroBatch = 65'536;
constexpr std::int64_t kMaxGradAccum = 1'024;
constexpr std::int64_t kMaxTensorParallel = 1'024;
constexpr std::int64_t kMaxPipelineParallel = 1'024;
constexpr std::int64_t kMaxContextParallel = 1'024;
constexpr std::int64_t kMaxWorldSize = 131'072;

DType parse_dtype_choice(const ConfigNode& node) {
  return *dtype_from_string(node.as_choice({"bf16", "fp16", "fp32"}));
}

void set_mlp(WorkloadSpec& spec, const MlpSpec& mlp) {
  spec.mlp = mlp;
  spec.model.name = mlp.name;
}

void set_cnn(WorkloadSpec& spec, const CnnSpec& cnn) {
  spec.cnn = cnn;
  spec.model.name = cnn.name;
}

void set_lstm(WorkloadSpec& spec, const LstmSpec& lstm) {
  spec.lstm = lstm;
  spec.model.name = lstm.name;
  spec.model.seq_len = lstm.seq_len;
}

void set_model(const ConfigNode& node, const ModelCatalogue& catalogue, WorkloadSpec& spec) {
  if (is_cnn_node(node)) return set_cnn(spec, parse_cnn_spec(node, "inline"));
  if (is_lstm_node(node)) return set_lstm(spec, parse_lstm_spec(node, "inline"));
  if (is_mlp_node(node)) return set_mlp(spec, parse_mlp_spec(node, "inline"));
  if (node.is_map()) {
    spec.model = parse_transformer_spec(node, "inline");
    return;
  }
  const std::string id = node.as_string();
  if (const MlpSpec* mlp = catalogue.find_mlp(id)) return set_mlp(spec, *mlp);
  if (const CnnSpec* cnn = catalogue.find_cnn(id)) return set_cnn(spec, *cnn);
  if (const LstmSpec* lstm = catalogue.find_lstm(id)) return set_lstm(spec, *lstm);
  if (const TransformerSpec* found = catalogue.find(id)) {
    spec.model = *found;
    return;
  }
  node.fail("unknown model '" + id + "'; valid ids are " + join_choices(catalogue.ids()) +
            ", or give an inline mapping of layers, hidden, heads, vocab, seq_len (or kind: mlp, cnn or lstm)");
}

// Sequences shorter than the model's context (SQuAD's 384 tokens on BERT's
// 512 positions): the learned position table keeps its rows.
void set_sequence_length(const ConfigNode& node, WorkloadSpec& spec) {
  if (!node.has("seq_len")) return;
  TransformerSpec& m = spec.model;
  if (spec.data_parallel_only_model()) node.child("seq_len").fail("seq_len applies to transformer models only");
  const std::int64_t tokens = node.positive_integer("seq_len");
  if (tokens > m.seq_len) {
    node.child("seq_len").fail("must be from 1 to the model's seq_len (" + std::to_string(m.seq_len) + "), got " +
                               std::to_string(tokens) + "; a longer context needs a model with more positions");
  }
  m.position_rows = m.seq_len;
  m.seq_len = tokens;
}

// The MLP, CNN and LSTM generators build pure data-parallel DDP traces only.
void check_mlp_plan(const ConfigNode& node, const WorkloadSpec& spec) {
  const ParallelPlan& p = spec.parallel;
  if (p.tensor > 1 || p.pipeline > 1 || p.expert > 1 || p.context > 1 || !p.gpus.empty()) {
    node.child("parallel")
        .fail("an MLP, CNN or LSTM model runs data parallelism only (no tensor, pipeline, expert, context or gpus)");
  }
  if (spec.strategy != Strategy::ddp)
    node.child("strategy").fail("an MLP, CNN or LSTM model supports strategy ddp only");
}

// Each choice's config word, in the enum's order.
template <class Enum, std::size_t N>
using WordTable = std::array<std::pair<Enum, std::string_view>, N>;

constexpr WordTable<PipelineSchedule, 3> kScheduleWords{{{PipelineSchedule::gpipe, "gpipe"},
                                                         {PipelineSchedule::one_f_one_b, "1f1b"},
                                                         {PipelineSchedule::interleaved, "interleaved"}}};
constexpr WordTable<Strategy, 6> kStrategyWords{{{Strategy::ddp, "ddp"},
                                                 {Strategy::data_parallel, "data_parallel"},
                                                 {Strategy::zero1, "zero1"},
                                                 {Strategy::zero2, "zero2"},
                                                 {Strategy::zero3, "zero3"},
                                                 {Strategy::fsdp, "fsdp"}}};
constexpr WordTable<ActivationRecompute, 4> kRecomputeWords{{{ActivationRecompute::none, "none"},
                                                             {ActivationRecompute::selective, "selective"},
                                                             {ActivationRecompute::selective_op, "selective_op"},
                                                             {ActivationRecompute::full, "full"}}};
// `flash` is read as flash2 (what it meant before the kernels were told apart);
// flash2 comes first so that it is the word written back.
constexpr WordTable<AttentionKernel, 5> kAttentionWords{{{AttentionKernel::flash2, "flash2"},
                                                         {AttentionKernel::flash3, "flash3"},
                                                         {AttentionKernel::cudnn, "cudnn"},
                                                         {AttentionKernel::unfused, "unfused"},
                                                         {AttentionKernel::flash2, "flash"}}};
constexpr WordTable<ContextAlgorithm, 4> kContextWords{{{ContextAlgorithm::ring, "ring"},
                                                        {ContextAlgorithm::all_gather, "all_gather"},
                                                        {ContextAlgorithm::all_to_all, "all_to_all"},
                                                        {ContextAlgorithm::torch_all_gather, "torch_all_gather"}}};

template <class Enum, std::size_t N>
Enum parse_word(const ConfigNode& node, const WordTable<Enum, N>& table) {
  std::vector<std::string> words;
  for (const auto& [value, word] : table) words.emplace_back(word);
  const std::string name = node.as_choice(words);
  for (const auto& [value, word] : table) {
    if (word == name) return value;
  }
  return table.front().first;  // as_choice accepted only the table's words
}

template <class Enum, std::size_t N>
std::string_view word_of(Enum choice, const WordTable<Enum, N>& table) {
  for (const auto& [value, word] : table) {
    if (value == choice) return word;
  }
  return "?";
}

PipelineSchedule parse_schedule(const ConfigNode& node) { return parse_word(node, kScheduleWords); }

ParallelDim parse_dim(const ConfigNode& node) {
  const std::string name = node.as_choice({"tensor", "data", "pipeline"});
  if (name == "tensor") return ParallelDim::tensor;
  return name == "data" ? ParallelDim::data : ParallelDim::pipeline;
}

// A permutation of the three dimension names, fastest-varying first.
std::array<ParallelDim, 3> parse_order(const ConfigNode& node) {
  const auto items = node.elements();
  if (items.size() != 3) node.fail("expected the three names [tensor, data, pipeline] in some order");
  std::array<ParallelDim, 3> order{};
  for (std::size_t i = 0; i < 3; ++i) {
    order[i] = parse_dim(items[i]);
    for (std::size_t j = 0; j < i; ++j) {
      if (order[j] == order[i]) items[i].fail("names a dimension twice; list tensor, data and pipeline once each");
    }
  }
  return order;
}

std::vector<std::uint32_t> parse_gpu_list(const ConfigNode& node, std::int64_t world) {
  const auto items = node.elements();
  if (static_cast<std::int64_t>(items.size()) != world) {
    node.fail("lists " + std::to_string(items.size()) + " GPUs but the plan has data * context * tensor * pipeline = " +
              std::to_string(world) + " ranks; give one GPU index per rank");
  }
  std::vector<std::uint32_t> gpus;
  for (const auto& item : items) {
    const std::int64_t g = item.as_integer();
    if (g < 0 || g >= kMaxWorldSize) item.fail("must be a GPU index from 0");
    for (auto seen : gpus) {
      if (seen == g) item.fail("GPU " + std::to_string(g) + " is given to two ranks");
    }
    gpus.push_back(static_cast<std::uint32_t>(g));
  }
  return gpus;
}

// One entry per virtual stage (chunk * pipeline + stage), each at least one
// block; that they sum to the model's layers is checked with the model. An
// empty list is the even split.
std::vector<std::int64_t> parse_stage_layers(const ConfigNode& node, const ParallelPlan& plan) {
  const auto items = node.elements();
  if (items.empty()) return {};  // `[]`: the even split, as a search writes it
  const std::int64_t chunks = plan.pipeline * plan.virtual_stages;
  if (static_cast<std::int64_t>(items.size()) != chunks) {
    node.fail("lists " + std::to_string(items.size()) + " stages but pipeline * virtual_stages = " +
              std::to_string(chunks) + "; give the blocks of each virtual stage (chunk * pipeline + stage) in order");
  }
  std::vector<std::int64_t> layers;
  for (const auto& item : items) {
    const std::int64_t n = item.as_integer();
    if (n < 1) item.fail("must be at least 1 (every pipeline chunk holds a block)");
    layers.push_back(n);
  }
  return layers;
}

ParallelPlan parse_parallel(const ConfigNode& node) {
  node.expect_map();
  expect_section(node, "workload.parallel");
  ParallelPlan plan;
  plan.data = node.has("data") ? bounded_positive_integer(node, "data", kMaxDataParallel) : 1;
  if (node.has("tensor")) plan.tensor = bounded_positive_integer(node, "tensor", kMaxTensorParallel);
  if (node.has("pipeline")) plan.pipeline = bounded_positive_integer(node, "pipeline", kMaxPipelineParallel);
  if (node.has("expert")) plan.expert = bounded_positive_integer(node, "expert", kMaxDataParallel);
  if (node.has("context")) plan.context = bounded_positive_integer(node, "context", kMaxContextParallel);
  if (auto a = node.optional_child("context_algorithm")) plan.context_algorithm = parse_word(*a, kContextWords);
  plan.sequence = node.bool_or("sequence", false);
  plan.tp_comm_overlap = node.bool_or("tp_comm_overlap", false);
  plan.async_tp = node.bool_or("async_tp", false);
  if (auto s = node.optional_child("schedule")) plan.schedule = parse_schedule(*s);
  if (node.has("virtual_stages")) plan.virtual_stages = bounded_positive_integer(node, "virtual_stages", 64);
  if (plan.world_size() > kMaxWorldSize) {
    node.fail("data * context * tensor * pipeline = " + std::to_string(plan.world_size()) + " ranks; at most " +
              std::to_string(kMaxWorldSize) + " are supported");
  }
  if (auto o = node.optional_child("order")) plan.order = parse_order(*o);
  if (auto g = node.optional_child("gpus")) plan.gpus = parse_gpu_list(*g, plan.world_size());
  if (node.has("gpus_per_node")) {
    if (node.has("gpus")) node.child("gpus_per_node").fail("cannot be given with `gpus`; use one or the other");
    plan.gpus_per_node = bounded_positive_integer(node, "gpus_per_node", kMaxWorldSize);
  }
  if (auto s = node.optional_child("stage_layers")) plan.stage_layers = parse_stage_layers(*s, plan);
  return plan;
}

DdpOptions parse_ddp(const ConfigNode& node, DType precision) {
  expect_section(node, "workload.ddp");
  DdpOptions ddp;
  ddp.grad_dtype = precision;
  ddp.bucket_size_bytes = node.size_or("bucket_size", ddp.bucket_size_bytes);
  if (ddp.bucket_size_bytes <= 0) node.child("bucket_size").fail("must be a positive size such as '25 MiB'");
  ddp.first_bucket_size_bytes = node.size_or("first_bucket_size", ddp.first_bucket_size_bytes);
  if (ddp.first_bucket_size_bytes <= 0) {
    node.child("first_bucket_size").fail("must be a positive size such as '1 MiB'");
  }
  ddp.overlap = node.bool_or("overlap", ddp.overlap);
  ddp.overlap_param_gather = node.bool_or("overlap_param_gather", ddp.overlap_param_gather);
  if (auto g = node.optional_child("grad_dtype")) ddp.grad_dtype = parse_dtype_choice(*g);
  return ddp;
}

// global = micro * data * micro-batches per step, with a whole number of
// micro-batches (one pipeline's worth per data-parallel replica).
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
        .fail("needs " + std::to_string(spec.grad_accum) + " micro-batches per step; at most " +
              std::to_string(kMaxGradAccum) + " are supported");
  }
}

ActivationRecompute parse_recompute(const ConfigNode& node) {
  if (!node.has("activation_recompute")) return ActivationRecompute::none;
  return parse_word(node.child("activation_recompute"), kRecomputeWords);
}

Strategy parse_strategy(const ConfigNode& node) { return parse_word(node, kStrategyWords); }

Fp8Scaling parse_fp8_scaling(const ConfigNode& node) {
  return node.as_choice({"delayed", "dynamic"}) == "dynamic" ? Fp8Scaling::dynamic : Fp8Scaling::delayed;
}

std::string frameworks_path() { return data_root() + "/workloads/frameworks.yaml"; }

// The figures one frameworks.yaml entry gives, each over what `spec` holds:
// WorkloadSpec's defaults, or its base entry's.
void apply_framework_entry(const ConfigNode& entry, WorkloadSpec& spec) {
  spec.kernel_time_factor = entry.number_or("kernel_time_factor", spec.kernel_time_factor);
  if (spec.kernel_time_factor < 1.0) entry.child("kernel_time_factor").fail("must be at least 1");
  if (auto defaults = entry.optional_child("attention_by_architecture")) {
    for (const auto& [architecture, kernel] : defaults->entries())
      spec.framework_attention[architecture] = parse_word(kernel, kAttentionWords);
  }
  if (auto factors = entry.optional_child("kernel_time_factor_by_architecture")) {
    for (const auto& [architecture, factor] : factors->entries()) {
      const double value = factor.as_number();
      if (value < 1.0) factor.fail("must be at least 1");
      spec.framework_kernel_time_factor[architecture] = value;
    }
  }
  spec.framework_overlaps.tp_comm = entry.bool_or("tp_comm_overlap", spec.framework_overlaps.tp_comm);
  spec.loss_in_fp32 = entry.bool_or("loss_in_fp32", spec.loss_in_fp32);
  spec.loss_unfused_fp32 = entry.bool_or("loss_unfused_fp32", spec.loss_unfused_fp32);
  spec.optimizer_fused = entry.bool_or("optimizer_fused", spec.optimizer_fused);
  spec.eager_op_chains = entry.bool_or("eager_op_chains", spec.eager_op_chains);
  spec.tp_async_backward = entry.bool_or("tp_async_backward", spec.tp_async_backward);
  spec.tp_sequence_dim_copies = entry.bool_or("tp_sequence_dim_copies", spec.tp_sequence_dim_copies);
  spec.framework_compiles = entry.bool_or("torch_compile", spec.framework_compiles);
  if (entry.has("fp8_scaling")) spec.framework_fp8_scaling = parse_fp8_scaling(entry.child("fp8_scaling"));
  spec.framework_fp8_tp_all_gather = entry.bool_or("fp8_tp_all_gather", spec.framework_fp8_tp_all_gather);
  if (auto layouts = entry.optional_child("fp8_transposes_by_architecture")) {
    for (const auto& [architecture, transposes] : layouts->entries())
      spec.framework_fp8_transposes[architecture] = transposes.as_bool();
  }
  spec.host_issue_per_kernel = entry.time_or("host_issue_per_kernel", spec.host_issue_per_kernel);
  if (spec.host_issue_per_kernel > seconds_to_ps(1.0)) entry.child("host_issue_per_kernel").fail("at most 1 s");
}

// An entry of `table` (frameworks.yaml's `frameworks`) names a framework;
// one with `base` is a release of another (nemo-25.04 of megatron-lm): it
// starts from that entry's figures and changes only the fields it gives, so
// the two cannot drift apart. `where` is the config node an unknown name is
// reported at.
void apply_framework(const ConfigNode& table, const std::string& name, const ConfigNode& where, WorkloadSpec& spec) {
  std::vector<std::string> names;
  for (const auto& [id, entry] : table.entries()) names.push_back(id);
  const auto entry = table.optional_child(name);
  if (!entry) where.fail("unknown framework '" + name + "'; valid ids are " + join_choices(names));
  if (auto base = entry->optional_child("base")) {
    const auto base_entry = table.optional_child(base->as_string());
    if (!base_entry || base_entry->has("base"))
      base->fail("must name a framework without a base of its own; valid ids are " + join_choices(names));
    apply_framework_entry(*base_entry, spec);
  } else if (!entry->has("kernel_time_factor")) {
    entry->child("kernel_time_factor");  // required without a base: fails naming it
  }
  spec.framework = name;
  apply_framework_entry(*entry, spec);
}

// A config without `framework:` runs the one its model family is trained
// with in practice (frameworks.yaml, default_framework): a step priced as
// published runs of that kind are, not a roofline no framework reaches.
void set_framework(const ConfigNode& node, WorkloadSpec& spec) {
  const ConfigNode frameworks = ConfigNode::load_file(frameworks_path());
  const ConfigNode table = frameworks.child("frameworks");
  if (auto given = node.optional_child("framework")) {
    apply_framework(table, given->as_string(), *given, spec);
    return;
  }
  const char* family = spec.mlp ? "mlp" : spec.cnn ? "cnn" : spec.lstm ? "lstm" : "transformer";
  const ConfigNode chosen = frameworks.child("default_framework").child(family);
  apply_framework(table, chosen.as_string(), chosen, spec);
  spec.framework_by_default = true;
}

// TE userbuffers overlap the sequence-parallel all-gathers and
// reduce-scatters, so they need both. Asked for in the config without them,
// it is an error; a framework's default applies only where it can (a
// TP-1 or non-SP run of a framework that overlaps has nothing to overlap).
void set_tp_comm_overlap(const ConfigNode& node, WorkloadSpec& spec) {
  ParallelPlan& p = spec.parallel;
  const auto parallel = node.optional_child("parallel");
  const bool asked = parallel && parallel->has("tp_comm_overlap");
  if (!asked) {
    p.tp_comm_overlap = spec.framework_overlaps.tp_comm && p.tensor > 1 && p.sequence;
    return;
  }
  if (!p.tp_comm_overlap) return;
  if (p.tensor == 1 || !p.sequence) {
    parallel->child("tp_comm_overlap")
        .fail(
            "tp_comm_overlap overlaps the sequence-parallel all-gather and reduce-scatter of tensor parallelism, so "
            "it needs tensor > 1 and sequence: true (this plan has tensor = " +
            std::to_string(p.tensor) + ", sequence: " + (p.sequence ? "true" : "false") +
            "); set those or tp_comm_overlap: false");
  }
}

// AsyncTP is an Inductor pass (torch._inductor micro_pipeline_tp) that
// rewrites a compiled block's SP all-gather -> matmul and matmul ->
// reduce-scatter pairs, so it needs what those pairs need (TP with SP) and
// torch.compile; it replaces TE's userbuffers rather than joining them, and
// is modelled for full training (its fine-tuning paths are TE's).
void check_async_tp(const ConfigNode& node, const WorkloadSpec& spec) {
  const ParallelPlan& p = spec.parallel;
  if (!p.async_tp) return;
  const ConfigNode field = node.child("parallel").child("async_tp");
  if (p.tensor == 1 || !p.sequence) {
    field.fail(
        "async_tp fuses the sequence-parallel all-gathers and reduce-scatters of tensor parallelism with "
        "their matmuls, so it needs tensor > 1 and sequence: true (this plan has tensor = " +
        std::to_string(p.tensor) + ", sequence: " + (p.sequence ? "true" : "false") +
        "); set those or async_tp: false");
  }
  if (!spec.compile) {
    field.fail(
        "async_tp is torch.compile's micro-pipelined tensor parallelism (an Inductor pass), so it needs "
        "compile: true (framework torchtitan); set compile: true or async_tp: false");
  }
  if (p.tp_comm_overlap) {
    field.fail(
        "async_tp and tp_comm_overlap are two ways to overlap the same collectives (torch symmetric memory "
        "or Transformer Engine userbuffers); set one of them to false");
  }
  if (spec.finetune) {
    field.fail("async_tp is modelled for full training; remove finetune or set async_tp: false");
  }
}

// torch.compile is modelled where the framework's eager kernel chains are
// (frameworks.yaml, torch_compile): it fuses them. Elsewhere it would change
// nothing simctl prices, so it is refused rather than ignored.
void set_compile(const ConfigNode& node, WorkloadSpec& spec) {
  spec.compile = node.bool_or("compile", false);
  if (!spec.compile || spec.framework_compiles) return;
  node.child("compile").fail(
      "torch.compile is modelled for frameworks whose eager kernel chains it fuses (torchtitan); "
      "framework '" +
      spec.framework +
      "' has no such chains here (workloads/frameworks.yaml); set compile: false or framework: "
      "torchtitan");
}

// A captured graph replays GPU work only: a step that runs its optimizer on
// the CPU, or drives every GPU from one process (nn.DataParallel's threads),
// cannot be one.
void check_cuda_graphs(const ConfigNode& node, const WorkloadSpec& spec) {
  if (!spec.cuda_graphs) return;
  if (spec.offload.optimizer)
    node.child("cuda_graphs")
        .fail(
            "a CUDA graph cannot capture the CPU optimizer step of offload.optimizer: cpu; set cuda_graphs: false "
            "or keep the optimizer on the GPU");
  if (spec.strategy == Strategy::data_parallel)
    node.child("cuda_graphs")
        .fail(
            "nn.DataParallel (strategy: data_parallel) replicates the model from one process every step and "
            "cannot be captured as a CUDA graph; use strategy: ddp with cuda_graphs: true, or cuda_graphs: false");
}

// Under fp8 both TP overlaps gather fp8 (TE's userbuffers, AsyncTP's fused
// scaled matmul; fp8_gathers), so an explicit `fp8.tp_all_gather: false`
// contradicts either rather than being silently overridden.
void check_tp_overlap_scope(const ConfigNode& node, const WorkloadSpec& spec) {
  const ParallelPlan& p = spec.parallel;
  if (!p.tp_comm_overlap && !p.async_tp) return;
  const auto fp8 = node.optional_child("fp8");
  if (spec.fp8 && fp8 && fp8->has("tp_all_gather") && !spec.fp8->tp_all_gather) {
    const std::string overlap = p.tp_comm_overlap ? "tp_comm_overlap" : "async_tp";
    const std::string who =
        p.tp_comm_overlap ? "Transformer Engine's userbuffers all-gather" : "AsyncTP's fused scaled matmuls all-gather";
    fp8->child("tp_all_gather")
        .fail("with " + overlap + ", " + who + " the fp8 inputs, so tp_all_gather cannot be false; remove it or set " +
              overlap + ": false");
  }
}

// Gathering updated weights ahead of the forward needs weights that are
// gathered after the update at all: the distributed optimizer (zero1/zero2).
void check_param_gather(const ConfigNode& node, const WorkloadSpec& spec) {
  if (!spec.ddp.overlap_param_gather) return;
  if (spec.strategy == Strategy::zero1 || spec.strategy == Strategy::zero2) return;
  node.child("ddp")
      .child("overlap_param_gather")
      .fail(
          "overlap_param_gather all-gathers the weights a distributed optimizer updated in shards, so it needs "
          "strategy zero1 or zero2 (Megatron's --use-distributed-optimizer), not " +
          std::string(config_word(spec.strategy)) +
          (spec.strategy == Strategy::zero3 || spec.strategy == Strategy::fsdp
               ? " (which gathers each unit's weights before its forward already)"
               : "") +
          "; change the strategy or set overlap_param_gather: false");
}

bool shards_weights_strategy(Strategy s) { return s == Strategy::zero3 || s == Strategy::fsdp; }

// Offload is modelled for transformers under ddp, zero1 and zero2, as
// ZeRO-Offload runs (stage 3's parameter offload, ZeRO-Infinity, is not).
void set_offload(const ConfigNode& node, WorkloadSpec& spec) {
  spec.offload = parse_offload(node);
  if (!spec.offload.any()) return;
  if (spec.data_parallel_only_model()) {
    node.fail("offload is modelled for transformer models (GPT, Llama); '" + spec.model.name +
              "' is an MLP, CNN or LSTM; remove offload or use offload: {optimizer: none, activations: none}");
  }
  if (spec.strategy == Strategy::data_parallel || shards_weights_strategy(spec.strategy)) {
    node.fail("offload is modelled with strategy ddp, zero1 or zero2 (ZeRO-Offload), not " +
              std::string(config_word(spec.strategy)) + "; change the strategy or remove offload");
  }
}

ConfigNode parallel_field(const ConfigNode& workload, std::string_view key) {
  return workload.child("parallel").child(key);
}

// "valid: 1, 2, 3, 4, 6, 12": the degrees that divide every count given.
std::string valid_divisors(std::initializer_list<std::int64_t> counts) {
  std::string out;
  const std::int64_t limit = *std::min_element(counts.begin(), counts.end());
  for (std::int64_t d = 1; d <= limit; ++d) {
    if (std::all_of(counts.begin(), counts.end(), [d](std::int64_t c) { return c % d == 0; })) {
      out += (out.empty() ? "; valid: " : ", ") + std::to_string(d);
    }
  }
  return out;
}

// Expert parallelism splits the experts over `expert` of the data-parallel
// ranks: it needs a mixture of experts, and must divide both the experts and
// the data-parallel degree.
void check_experts_fit(const ConfigNode& node, const WorkloadSpec& spec) {
  const ParallelPlan& p = spec.parallel;
  const TransformerSpec& m = spec.model;
  if (m.moe() && m.expert_width() % p.tensor != 0) {
    parallel_field(node, "tensor")
        .fail("tensor = " + std::to_string(p.tensor) + " must divide the experts' MLP width " +
              std::to_string(m.expert_width()) + valid_divisors({m.heads, m.ffn, m.kv_heads, m.expert_width()}));
  }
  // Megatron-core's MoE token dispatcher works on sequence-parallel shards.
  if (m.moe() && p.tensor > 1 && !p.sequence) {
    parallel_field(node, "tensor")
        .fail(
            "a mixture-of-experts model with tensor > 1 needs sequence: true (Megatron-core routes "
            "sequence-parallel token shards), or use tensor: 1");
  }
  if (p.expert == 1) return;
  if (!m.moe()) {
    parallel_field(node, "expert")
        .fail("expert = " + std::to_string(p.expert) + " needs a mixture-of-experts model, but '" + m.name +
              "' is dense (no experts); use expert: 1 or a model with experts > 1 such as mixtral-8x7b");
  }
  if (m.experts % p.expert != 0) {
    parallel_field(node, "expert")
        .fail("expert = " + std::to_string(p.expert) + " must divide the model's " + std::to_string(m.experts) +
              " experts" + valid_divisors({m.experts}));
  }
  if (p.data % p.expert != 0) {
    parallel_field(node, "expert")
        .fail("expert = " + std::to_string(p.expert) + " must divide data = " + std::to_string(p.data) +
              " (expert parallelism subdivides the data-parallel ranks)" + valid_divisors({m.experts, p.data}));
  }
  if (shards_weights_strategy(spec.strategy)) {
    node.child("strategy")
        .fail("zero3 and fsdp are not supported with expert parallelism; use ddp, zero1 or zero2, or expert: 1");
  }
}

// The sequence positions one CP rank's share must be a whole multiple of:
// ring and all_gather give each rank two chunks (Megatron's load balancing
// of the causal mask: chunks r and 2c-1-r), so 2 * context; all_to_all
// splits it evenly; sequence parallelism then splits a rank's rows over TP.
std::int64_t context_sequence_divisor(const ParallelPlan& p) {
  const std::int64_t chunks = p.context_algorithm == ContextAlgorithm::all_to_all ? p.context : 2 * p.context;
  return chunks * (p.sequence && p.tensor > 1 ? p.tensor : 1);
}

// Context parallelism splits a transformer's sequence (context_parallel.hpp).
void check_context(const ConfigNode& node, const WorkloadSpec& spec) {
  const ParallelPlan& p = spec.parallel;
  const TransformerSpec& m = spec.model;
  if (p.context == 1) return;
  const std::string cp = "context = " + std::to_string(p.context);
  const std::int64_t divisor = context_sequence_divisor(p);
  if (m.seq_len % divisor != 0) {
    const bool two = p.context_algorithm != ContextAlgorithm::all_to_all;
    const bool sp = p.sequence && p.tensor > 1;
    parallel_field(node, "context")
        .fail(cp + " does not divide the sequence: seq_len " + std::to_string(m.seq_len) + " must be a multiple of " +
              (two ? "2 * context" : "context") + (sp ? " * tensor" : "") + " = " + std::to_string(divisor) +
              (two ? " (context_algorithm " + std::string(config_word(p.context_algorithm)) +
                         " gives each CP rank two chunks of the sequence to balance the causal mask)"
                   : "") +
              "; choose a context that divides it or a longer seq_len");
  }
  if (p.context_algorithm == ContextAlgorithm::all_to_all) {
    const std::int64_t heads = m.heads / p.tensor, kv_heads = m.kv_heads / p.tensor;
    if (heads % p.context != 0 || kv_heads % p.context != 0) {
      parallel_field(node, "context")
          .fail(cp +
                " with context_algorithm all_to_all (Ulysses) splits each TP rank's heads over the CP ranks, "
                "so it must divide heads / tensor = " +
                std::to_string(heads) + " and kv_heads / tensor = " + std::to_string(kv_heads) +
                valid_divisors({heads, kv_heads}) + "; or use context_algorithm: ring");
    }
  }
  if (m.moe()) {
    parallel_field(node, "context")
        .fail(cp + " with a mixture of experts ('" + m.name + "') is not modelled; use context: 1 or a dense model");
  }
  if (spec.attention_given && spec.attention == AttentionKernel::unfused) {
    node.child("attention")
        .fail(
            "context parallelism runs blockwise fused attention (Transformer Engine's flash or cuDNN kernels); "
            "attention: unfused is not supported with " +
            cp + "; use flash2, flash3 or cudnn");
  }
}

// `precision: fp8` trains as Transformer Engine does (fp8_training.hpp):
// bf16 stays the precision of everything but the linear layers' GEMMs.
// `fp4` is the same with those GEMMs in 4-bit block-scaled operands.
void set_precision(const ConfigNode& node, WorkloadSpec& spec) {
  const std::string word = node.as_choice({"bf16", "fp16", "fp32", "tf32", "fp8", "fp4"});
  if (word != "fp8" && word != "fp4") {
    spec.precision = *dtype_from_string(word);
    return;
  }
  spec.precision = DType::bf16;
  spec.fp8 = Fp8Training{};
  spec.fp8->gemm_dtype = *dtype_from_string(word);
}

// The `fp8:` options, and what fp8 training is modelled for: a dense
// transformer's linear layers.
void check_fp8(const ConfigNode& node, WorkloadSpec& spec) {
  const bool sequence_parallel = spec.parallel.sequence && spec.parallel.tensor > 1;
  if (spec.fp8) {
    spec.fp8->scaling = spec.framework_fp8_scaling;
    spec.fp8->tp_all_gather = spec.framework_fp8_tp_all_gather && sequence_parallel;
  }
  if (auto f = node.optional_child("fp8")) {
    if (!spec.fp8) f->fail("fp8 options need `precision: fp8` (or fp4)");
    expect_section(*f, "workload.fp8");
    spec.fp8->tp_all_gather = f->bool_or("tp_all_gather", spec.fp8->tp_all_gather);
    spec.fp8->param_all_gather = f->bool_or("param_all_gather", false);
    spec.fp8->params = f->bool_or("params", false);
    spec.fp8->activation_input = f->bool_or("activation_input", false);
    spec.fp8->dot_product_attention = f->bool_or("dot_product_attention", false);
    if (f->has("scaling")) spec.fp8->scaling = parse_fp8_scaling(f->child("scaling"));
    if (spec.fp8->params && shards_weights_strategy(spec.strategy)) {
      f->child("params").fail("fp8 parameters are modelled for unsharded weights (ddp, zero1, zero2); with strategy " +
                              std::string(config_word(spec.strategy)) +
                              " use param_all_gather (the shard cast to fp8 and gathered)");
    }
    if (spec.fp8->tp_all_gather && !sequence_parallel) {
      f->child("tp_all_gather")
          .fail(
              "fp8 all-gathers of activations need sequence parallelism (parallel.sequence: true with tensor > "
              "1); set it, or tp_all_gather: false");
    }
    if (spec.fp8->param_all_gather && !shards_weights_strategy(spec.strategy)) {
      f->child("param_all_gather")
          .fail("fp8 all-gathers of weights need sharded weights (strategy zero3 or fsdp); the strategy is " +
                std::string(config_word(spec.strategy)));
    }
  }
  if (!spec.fp8) return;
  const ConfigNode precision = node.child("precision");
  const std::string format(to_string(spec.fp8->gemm_dtype));
  if (spec.data_parallel_only_model()) {
    precision.fail(format +
                   " training is modelled for transformers (Transformer Engine's low-precision linear "
                   "layers), not '" +
                   spec.model.name + "'; use bf16");
  }
  if (spec.model.moe()) {
    precision.fail(format + " training of a mixture of experts ('" + spec.model.name +
                   "') is not modelled yet; use bf16, or a dense model");
  }
}

// Megatron's block method counts its N blocks in each pipeline chunk.
void check_recompute_layers(const ConfigNode& node, const WorkloadSpec& spec) {
  if (!node.has("activation_recompute_layers")) return;
  const ConfigNode field = node.child("activation_recompute_layers");
  if (spec.recompute != ActivationRecompute::full)
    field.fail(
        "needs activation_recompute: full (it says how many blocks of each pipeline chunk full recompute re-runs)");
  if (node.has("activation_recompute_every"))
    field.fail(
        "cannot be given with activation_recompute_every: choose the first N blocks of each chunk or every k-th");
  const auto& par = spec.parallel;
  const std::int64_t chunk = max_chunk_blocks(spec);
  if (spec.recompute_layers > chunk) {
    field.fail("must be 1 ... " + std::to_string(chunk) + " (the most blocks a pipeline chunk holds: " +
               std::to_string(spec.model.layers) + " layers over " + std::to_string(par.pipeline * par.virtual_stages) +
               " chunks), not " + std::to_string(spec.recompute_layers));
  }
}

// selective_op follows torchtitan's op policy over a dense block's matmuls;
// recompute_every picks which blocks `full` checkpoints.
void check_recompute(const ConfigNode& node, const WorkloadSpec& spec) {
  if (spec.recompute == ActivationRecompute::selective_op && spec.model.moe()) {
    node.child("activation_recompute")
        .fail(
            "selective_op (torchtitan's op-level checkpointing) is modelled for dense blocks only; use none, "
            "selective or full with a mixture of experts");
  }
  if (spec.recompute == ActivationRecompute::selective_op && spec.attention == AttentionKernel::unfused) {
    node.child("activation_recompute")
        .fail(
            "selective_op saves the fused attention kernel's output (SDPA); with attention: unfused use none, "
            "selective or full");
  }
  check_recompute_layers(node, spec);
  if (!node.has("activation_recompute_every")) return;
  if (spec.recompute != ActivationRecompute::full) {
    node.child("activation_recompute_every")
        .fail("needs activation_recompute: full (it says which blocks full recompute checkpoints)");
  }
  if (spec.recompute_every > spec.model.layers) {
    node.child("activation_recompute_every")
        .fail("must be 1 ... " + std::to_string(spec.model.layers) + " (the model's layers), not " +
              std::to_string(spec.recompute_every));
  }
}

// Checks that need both the model and the plan: how heads, layers and
// micro-batches split over ranks.
void check_plan_fits_model(const ConfigNode& node, const WorkloadSpec& spec) {
  const ParallelPlan& p = spec.parallel;
  const TransformerSpec& m = spec.model;
  if (m.heads % p.tensor != 0 || m.ffn % p.tensor != 0) {
    parallel_field(node, "tensor")
        .fail("tensor = " + std::to_string(p.tensor) + " must divide the model's " + std::to_string(m.heads) +
              " attention heads (and its MLP width " + std::to_string(m.ffn) + ")" + valid_divisors({m.heads, m.ffn}));
  }
  // Megatron splits whole KV heads over TP ranks (no replication).
  if (m.kv_heads % p.tensor != 0) {
    parallel_field(node, "tensor")
        .fail("tensor = " + std::to_string(p.tensor) + " must divide the model's " + std::to_string(m.kv_heads) +
              " key/value heads (grouped-query attention)" + valid_divisors({m.heads, m.ffn, m.kv_heads}));
  }
  const std::int64_t chunks = p.pipeline * p.virtual_stages;
  if (!p.stage_layers.empty()) {
    std::int64_t sum = 0;
    for (auto n : p.stage_layers) sum += n;
    if (sum != m.layers) {
      parallel_field(node, "stage_layers")
          .fail("sums to " + std::to_string(sum) + " blocks but the model has " + std::to_string(m.layers) +
                " layers; the entries must add up to them");
    }
  } else if (m.layers % chunks != 0) {
    parallel_field(node, p.virtual_stages > 1 ? "virtual_stages" : "pipeline")
        .fail("pipeline * virtual_stages = " + std::to_string(p.pipeline) + " * " + std::to_string(p.virtual_stages) +
              " must divide the model's " + std::to_string(m.layers) + " layers" + valid_divisors({m.layers}) +
              ", or list each stage's blocks in stage_layers");
  }
  const bool interleaved = p.schedule == PipelineSchedule::interleaved;
  if (interleaved != (p.virtual_stages > 1)) {
    parallel_field(node, interleaved ? "schedule" : "virtual_stages")
        .fail("the interleaved schedule and virtual_stages > 1 go together");
  }
  if (interleaved && (p.pipeline < 3 || spec.grad_accum % p.pipeline != 0)) {
    parallel_field(node, "schedule")
        .fail("interleaved 1F1B (as Megatron-LM) needs pipeline >= 3 and micro-batches per step (" +
              std::to_string(spec.grad_accum) + ") a multiple of pipeline (" + std::to_string(p.pipeline) + ")");
  }
  if (spec.strategy == Strategy::data_parallel && (p.tensor > 1 || p.pipeline > 1 || p.expert > 1 || p.context > 1)) {
    node.child("strategy")
        .fail(
            "data_parallel (PyTorch nn.DataParallel) runs data parallelism only; "
            "use ddp, zero1-3 or fsdp with tensor, pipeline, expert or context parallelism");
  }
  check_experts_fit(node, spec);
  check_context(node, spec);
}

}  // namespace

WorkloadSpec parse_workload(const ConfigNode& node, const ModelCatalogue& catalogue) {
  if (is_inference_task(node)) return parse_inference_workload(node, catalogue);
  expect_section(node, "workload");
  WorkloadSpec spec;
  set_model(node.child("model"), catalogue, spec);
  set_sequence_length(node, spec);
  if (auto p = node.optional_child("parallel")) spec.parallel = parse_parallel(*p);
  if (auto s = node.optional_child("strategy")) spec.strategy = parse_strategy(*s);
  set_batches(node, spec);
  if (auto p = node.optional_child("precision")) set_precision(*p, spec);
  if (node.has("optimizer")) node.choice("optimizer", {"adam"});
  spec.ddp.grad_dtype = spec.precision;
  if (auto d = node.optional_child("ddp")) spec.ddp = parse_ddp(*d, spec.precision);
  spec.recompute = parse_recompute(node);
  if (node.has("activation_recompute_every"))
    spec.recompute_every = node.positive_integer("activation_recompute_every");
  if (node.has("activation_recompute_layers"))
    spec.recompute_layers = node.positive_integer("activation_recompute_layers");
  if (node.has("attention")) {
    spec.attention = parse_word(node.child("attention"), kAttentionWords);
    spec.attention_given = true;
  }
  spec.dropout = node.number_or("dropout", 0.0);
  if (spec.dropout < 0.0 || spec.dropout >= 1.0) node.child("dropout").fail("must be a probability in [0, 1)");
  set_framework(node, spec);
  spec.cuda_graphs = node.bool_or("cuda_graphs", false);
  set_compile(node, spec);
  set_tp_comm_overlap(node, spec);
  check_param_gather(node, spec);
  if (auto input = node.optional_child("input")) spec.input = parse_input_pipeline(*input);
  if (auto offload = node.optional_child("offload")) set_offload(*offload, spec);
  check_cuda_graphs(node, spec);
  check_fp8(node, spec);
  set_finetune(node, spec);
  set_task_head(node, spec);
  check_tp_overlap_scope(node, spec);
  check_async_tp(node, spec);
  if (spec.data_parallel_only_model()) {
    check_mlp_plan(node, spec);
  } else {
    check_plan_fits_model(node, spec);
    check_recompute(node, spec);
  }
  return spec;
}

std::int64_t parameter_count(const WorkloadSpec& spec) {
  if (spec.cnn) return spec.cnn->parameter_count();
  if (spec.lstm) return spec.lstm->parameter_count();
  return spec.mlp ? spec.mlp->parameter_count() : spec.model.parameter_count();
}

WorkloadSpec parse_workload(const ConfigNode& node) {
  return parse_workload(node, ModelCatalogue::load_file(ModelCatalogue::default_path()));
}

WorkloadSpec load_workload_file(const std::string& path) {
  const ConfigNode root = ConfigNode::load_file(path);
  expect_section(root, "workload_file");
  return parse_workload(root.child("workload"));
}

std::string_view config_word(PipelineSchedule schedule) { return word_of(schedule, kScheduleWords); }
std::string_view config_word(Strategy strategy) { return word_of(strategy, kStrategyWords); }
std::string_view config_word(ActivationRecompute recompute) { return word_of(recompute, kRecomputeWords); }
std::string_view config_word(AttentionKernel kernel) { return word_of(kernel, kAttentionWords); }
std::string_view config_word(ContextAlgorithm algorithm) { return word_of(algorithm, kContextWords); }

}  // namespace simctl
