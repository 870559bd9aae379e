#include "workloads/memory_estimate.hpp"

#include <algorithm>
#include <stdexcept>

#include "workloads/activation_checkpointing.hpp"
#include "workloads/cnn_ops.hpp"
#include "workloads/data_parallel_sync.hpp"
#include "workloads/inference_memory.hpp"
#include "workloads/layer_split.hpp"
#include "workloads/lstm_ops.hpp"
#include "workloads/pipeline_schedule.hpp"
#include "workloads/stage_layout.hpp"

namespace simctl {
namespace {

constexpr double kAdamStateBytesMixed = 12.0;  // fp32 master weights, m, v
constexpr double kAdamStateBytesFp32 = 8.0;    // m, v (the weights are the master copy)
constexpr double kFp32Bytes = 4.0;
// Korthikanti et al. Sec. 4.1, per s*b*h: the parts no TP split touches
// (LayerNorm inputs, the GEMM inputs they feed, two dropout masks) and the
// parts TP splits (Q, K, V, attention output, MLP activations; see
// sharded_per_token).
constexpr double kReplicatedPerToken = 10.0;
constexpr double kHiddenDropoutMasks = 2.0;
constexpr double kScoreTerm = 5.0;           // softmax output 2, dropout mask 1, dropout output 2
constexpr double kScoreTermNoDropout = 2.0;  // softmax output only
constexpr double kLayerInputPerToken = 2.0;  // what full recompute keeps

// Context parallelism keeps s/cp positions per rank (context_parallel.hpp).
std::int64_t local_positions(const WorkloadSpec& spec) { return spec.model.seq_len / spec.parallel.context; }

double sbh(const WorkloadSpec& spec) {
  return static_cast<double>(spec.micro_batch * local_positions(spec) * spec.model.hidden);
}

// The K/V buffers context parallelism holds beside one layer's attention,
// per TP rank. ring: the block being computed on and the one arriving
// (double-buffered), and in backward as many dK/dV accumulators: four
// blocks of s/cp positions. all_gather: the gathered K and V of all s
// positions, and in backward their gradient before the reduce-scatter.
// all_to_all: Q, K, V and O re-laid out by the all-to-alls, as large as the
// rank's own.
double context_buffer_bytes(const WorkloadSpec& spec) {
  const auto& p = spec.parallel;
  if (p.context == 1) return 0.0;
  const auto& m = spec.model;
  const double kv_width = static_cast<double>(m.kv_width()) / static_cast<double>(p.tensor);
  const double q_width = static_cast<double>(m.hidden) / static_cast<double>(p.tensor);
  const double element = bytes_per_element(spec.precision);
  const double local = static_cast<double>(spec.micro_batch * local_positions(spec));
  switch (p.context_algorithm) {
    case ContextAlgorithm::ring: return 4.0 * local * 2.0 * kv_width * element;
    case ContextAlgorithm::all_gather:
      return 2.0 * static_cast<double>(spec.micro_batch * m.seq_len) * 2.0 * kv_width * element;
    case ContextAlgorithm::all_to_all: return local * (2.0 * q_width + 2.0 * kv_width) * element;
    case ContextAlgorithm::torch_all_gather:
      // K and V gathered at the query heads' width (torchtitan expands them
      // before SDPA), the fp32 merged output, and in backward the fp32 dK/dV
      // accumulator and the one in flight.
      return static_cast<double>(spec.micro_batch * m.seq_len) * 2.0 * q_width * element +
             local * q_width * kFp32Bytes + 2.0 * local * 2.0 * q_width * kFp32Bytes;
  }
  return 0.0;
}

// Korthikanti's 24 bytes per s*b*h for GPT, generalised: Q (2), K and V
// (2 each, times kv_heads / heads under GQA), the output projection's input
// (2), and the MLP's ffn-wide tensors, 2 bytes per ffn/h each: GeLU input and
// output (2 of them), or SwiGLU's gate, up and their product (3).
double sharded_per_token(const TransformerSpec& m) {
  const double kv_fraction = static_cast<double>(m.kv_heads) / static_cast<double>(m.heads);
  const double ffn_ratio = static_cast<double>(m.ffn) / static_cast<double>(m.hidden);
  const double mlp_tensors = m.gated_mlp ? 3.0 : 2.0;
  if (m.moe()) {
    // Each token's top_k copies run through an expert MLP of expert_ffn.
    const double expert_ratio = static_cast<double>(m.expert_width()) / static_cast<double>(m.hidden);
    const double copies = static_cast<double>(m.experts_per_token);
    return 2.0 + 4.0 * kv_fraction + 2.0 + copies * mlp_tensors * 2.0 * expert_ratio;
  }
  return 2.0 + 4.0 * kv_fraction + 2.0 + mlp_tensors * 2.0 * ffn_ratio;
}

// A mixture of experts also keeps, per s*b*h: the top_k copies each token
// sent (2 bytes each) after the TP gather, which the experts' fc1 weight
// gradient reads (whole on every TP rank: Megatron-core keeps the gathered
// copies rather than gather them again) ...
double moe_gathered_per_token(const TransformerSpec& m) {
  return m.moe() ? 2.0 * static_cast<double>(m.experts_per_token) : 0.0;
}

// ... and the top_k expert outputs each token gets back, which the gates'
// gradient reads (on the rank's sequence rows, so SP splits them). The
// router's probabilities (experts values per token) are too small to count.
double moe_returned_per_token(const TransformerSpec& m) {
  return m.moe() ? 2.0 * static_cast<double>(m.experts_per_token) : 0.0;
}

// Whether full recompute leaves some blocks whole (every k-th, or the first
// N of each chunk, checkpointed): those keep every activation.
bool recomputes_some_blocks(const WorkloadSpec& spec) {
  return spec.recompute == ActivationRecompute::full && (spec.recompute_every > 1 || spec.recompute_layers > 0);
}

bool sequence_parallel(const WorkloadSpec& spec) { return spec.parallel.sequence && spec.parallel.tensor > 1; }

// Under FP8 training each linear saves its input as the fp8 transpose its
// weight gradient reads (1 B, not 2), per s*b*h: the QKV and MLP-up inputs
// (replicated, /t with SP) and the attention-output and MLP-down inputs
// (TP-split; the latter ffn/h wide).
constexpr double kFp8SavedReplicatedPerToken = 2.0;
double fp8_saved_sharded_per_token(const TransformerSpec& m) {
  return 1.0 + static_cast<double>(m.ffn) / static_cast<double>(m.hidden);
}

// The MLP activation's inputs kept in fp8 rather than bf16 (fp8.activation_input):
// GeLU's one ffn-wide input, SwiGLU's gate and up.
double fp8_activation_input_saving_per_token(const TransformerSpec& m) {
  const double inputs = m.gated_mlp ? 2.0 : 1.0;
  return inputs * (2.0 - bytes_per_element(DType::fp8)) * static_cast<double>(m.ffn) / static_cast<double>(m.hidden);
}

// Under LoRA a base linear without adapters keeps no input for a weight
// gradient: Transformer Engine saves a linear's input only when its weight
// trains, and dgrad reads the weight, not the input. Its input goes unless
// another op reads it: QKV's and MLP-up's are norm outputs (the norms keep
// their own inputs), MLP-down's the activation's output (the activation
// keeps its inputs); the attention output stays, as fused attention's own.
void unsave_frozen_inputs(const WorkloadSpec& spec, double& replicated, double& sharded) {
  if (!spec.finetune || !spec.finetune->adapters()) return;
  const Finetune& f = *spec.finetune;
  const double element = spec.fp8 ? bytes_per_element(DType::fp8) : bytes_per_element(spec.precision);
  if (!f.targets_linear(LoraTarget::qkv)) replicated -= element;
  if (!f.targets_linear(LoraTarget::fc1)) replicated -= element;
  if (!f.targets_linear(LoraTarget::fc2))
    sharded -= element * static_cast<double>(spec.model.ffn) / static_cast<double>(spec.model.hidden);
}

double full_layer_bytes(const WorkloadSpec& spec) {
  const double t = static_cast<double>(spec.parallel.tensor);
  const bool dropout = spec.dropout > 0.0;
  double replicated = kReplicatedPerToken - (dropout ? 0.0 : kHiddenDropoutMasks) + moe_returned_per_token(spec.model);
  double sharded = sharded_per_token(spec.model);
  if (spec.fp8) {
    replicated -= kFp8SavedReplicatedPerToken;
    sharded -= fp8_saved_sharded_per_token(spec.model);
  }
  if (spec.fp8 && spec.fp8->activation_input) sharded -= fp8_activation_input_saving_per_token(spec.model);
  unsave_frozen_inputs(spec, replicated, sharded);
  if (sequence_parallel(spec)) replicated /= t;
  double bytes = sbh(spec) * (replicated + sharded / t + moe_gathered_per_token(spec.model));
  // Blocks that keep everything: all under `none`, those full recompute leaves whole.
  const bool keeps_all = spec.recompute == ActivationRecompute::none || recomputes_some_blocks(spec);
  const bool keeps_scores = spec.attention == AttentionKernel::unfused && keeps_all;
  if (keeps_scores) {
    const double s = static_cast<double>(spec.model.seq_len);
    const double score_elements = static_cast<double>(spec.model.heads * spec.micro_batch) * s * s / t;
    bytes += score_elements * (dropout ? kScoreTerm : kScoreTermNoDropout);
  }
  return bytes;
}

// The parameters a rank keeps of the `params` it holds (`expert_params` of
// them its experts'), when ZeRO shards them: dense ones over the
// data-parallel ranks, experts over the data / expert ranks that hold them.
double kept(const WorkloadSpec& spec, double params, double expert_params, bool sharded) {
  if (!sharded) return params;
  const auto& p = spec.parallel;
  return (params - expert_params) / static_cast<double>(p.gradient_replicas()) +
         expert_params / static_cast<double>(p.expert_data());
}

// PyTorch FSDP (FSDP1 flat parameters, FSDP2 with a MixedPrecisionPolicy)
// keeps each rank's shard in its original dtype, fp32, and casts to the
// compute dtype only as it all-gathers: the fp32 shard is the optimizer's
// master copy, and the sharded gradients are fp32 too (FSDP2 casts the
// reduce-scattered gradient back to the parameter's dtype,
// pytorch/pytorch torch/distributed/fsdp/_fully_shard/_fsdp_collectives.py,
// foreach_reduce). Adam adds m and v: 16 B per parameter in all.
std::vector<MemoryUse> fsdp_state(const WorkloadSpec& spec, double params, double expert_params) {
  const double shard = kept(spec, params, expert_params, true);
  return {
      {"weights", shard * kFp32Bytes},
      {"gradients", shard * kFp32Bytes},
      {"optimizer_states", shard * kAdamStateBytesFp32},
  };
}

std::vector<MemoryUse> model_state(const WorkloadSpec& spec, double params, double expert_params,
                                   bool holds_optimizer) {
  const Strategy s = spec.strategy;
  if (s == Strategy::fsdp && holds_optimizer) return fsdp_state(spec, params, expert_params);
  const double state_bytes = stored_as_fp32(spec.precision) ? kAdamStateBytesFp32 : kAdamStateBytesMixed;
  auto keep = [&](bool sharded) { return kept(spec, params, expert_params, sharded); };
  return {
      {"weights", keep(shards_weights(s)) * bytes_per_element(spec.precision)},
      {"gradients", keep(shards_gradients(s)) * bytes_per_element(spec.ddp.grad_dtype)},
      {"optimizer_states", holds_optimizer ? keep(shards_optimizer(s)) * state_bytes : 0.0},
  };
}

// Under `finetune` only what trains has gradients and optimizer states; the
// weights are the frozen base (QLoRA: its linear layers in nf4) plus the
// adapters in the workload's precision.
std::vector<MemoryUse> finetune_state(const WorkloadSpec& spec, std::int64_t stage) {
  const Finetune& f = *spec.finetune;
  const Strategy s = spec.strategy;
  const double held = stage_parameters(spec, stage);
  const double trainable = stage_trainable_parameters(spec, stage);
  const double adapters = f.adapters() ? trainable : 0.0;
  const double precision = bytes_per_element(spec.precision);
  double base_bytes = held * precision;
  if (f.method == FinetuneMethod::qlora) {
    const double layers = static_cast<double>(stage_block_count(spec, stage));
    const double linear =
        layers * static_cast<double>(spec.model.linear_parameters()) / static_cast<double>(spec.parallel.tensor);
    base_bytes -= linear * (precision - kNf4BytesPerParameter);
  }
  const double state_bytes = stored_as_fp32(spec.precision) ? kAdamStateBytesFp32 : kAdamStateBytesMixed;
  auto keep = [&](double params, bool sharded) { return kept(spec, params, 0.0, sharded); };
  return {
      {"weights", keep(base_bytes + adapters * precision, shards_weights(s))},
      {"gradients", keep(trainable, shards_gradients(s)) * bytes_per_element(spec.ddp.grad_dtype)},
      {"optimizer_states", keep(trainable, shards_optimizer(s)) * state_bytes},
  };
}

// The logits and the fp32 softmax of the loss, per micro-batch, on the rank
// that computes the loss, as one fused loss kernel holds them. PyTorch's
// unfused cross_entropy on logits.float() (loss_unfused_fp32: torchtitan's
// train.py loss_fn) holds more, at the larger of two moments: while
// log_softmax runs forward, the logits, their fp32 copy and the fp32
// log-probabilities it saves; while its backward runs (the logits freed
// before backward, as torchtitan's train.py does), those log-probabilities,
// the dense fp32 gradient nll_loss's backward gives them, and the fp32
// gradient it writes: three fp32 tensors of tokens x vocab.
// A task head's logits are its rows (the predicted positions, one per
// sequence, or start and end) times its columns (vocabulary, labels or
// positions).
double loss_buffer_bytes(const WorkloadSpec& spec, double replicas) {
  const auto& m = spec.model;
  const bool lm = m.head.kind == HeadKind::causal_lm;
  const std::int64_t rows = lm ? local_positions(spec) : m.head_rows_per_sequence();
  const double tokens = static_cast<double>(spec.micro_batch * rows) * replicas;
  const double vocab = static_cast<double>(m.head_columns()) / static_cast<double>(spec.parallel.tensor);
  const double logits = bytes_per_element(spec.precision);
  const double per_logit =
      spec.loss_unfused_fp32 ? std::max(logits + 2.0 * kFp32Bytes, 3.0 * kFp32Bytes) : logits + kFp32Bytes;
  return tokens * vocab * per_logit;
}

double largest_unit_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  double largest = 0.0;
  for (std::int64_t c = 0; c < spec.parallel.virtual_stages; ++c) {
    for (const auto& u : stage_chunk(spec, stage, c).units) largest = std::max(largest, u.parameters);
  }
  return largest;
}

MemoryUse& item(StageMemory& row, const std::string& name) {
  for (MemoryUse& use : row.items) {
    if (use.name == name) return use;
  }
  throw std::logic_error("memory row has no item " + name);
}

// Moves `bytes` of the row's item `name` to host memory.
void move_to_host(StageMemory& row, const std::string& name, double bytes) {
  item(row, name).bytes -= bytes;
  row.host_items.push_back({name, bytes});
}

// What offload moves to host memory (see the header); the copies it costs
// are in the trace (offload.hpp).
void offload_to_host(const WorkloadSpec& spec, std::int64_t stage, StageMemory& row) {
  if (spec.offload.optimizer) {
    move_to_host(row, "optimizer_states", item(row, "optimizer_states").bytes);
    MemoryUse& gradients = item(row, "gradients");
    row.host_items.push_back({"gradients", gradients.bytes});
    if (spec.parallel.gradient_replicas() == 1 && spec.grad_accum == 1) {
      const double buffers = 2.0 * largest_unit_parameters(spec, stage) * bytes_per_element(spec.ddp.grad_dtype);
      gradients.bytes = std::min(gradients.bytes, buffers);
    }
  }
  if (spec.offload.activations) {
    const double kept = std::min(item(row, "activations").bytes, 2.0 * layer_activation_bytes(spec));
    move_to_host(row, "activations", item(row, "activations").bytes - kept);
  }
}

// TE keeps each linear weight's fp8 copy and transpose for the step (the
// copy alone where fp8 GEMMs read any layout); weights ZeRO-3/FSDP gather
// are cast as they arrive, held only with the unit.
double fp8_weight_copy_bytes(const WorkloadSpec& spec, std::int64_t stage) {
  if (!spec.fp8 || shards_weights(spec.strategy)) return 0.0;
  return stage_linear_parameters(spec, stage) * (kFp8WeightCopyBytes + fp8_transpose_bytes(*spec.fp8));
}

bool holds_fp8_params(const WorkloadSpec& spec) { return spec.fp8 && spec.fp8->params; }

// Weights held in fp8 only: the linears take 1 B each instead of their
// bf16 copy and its fp8 copies (NVFP4's two copies under precision fp4); a
// dgrad's transpose is made and freed per GEMM where it needs one
// (temporary_bytes).
void move_fp8_params_into_weights(const WorkloadSpec& spec, std::int64_t stage, StageMemory& row) {
  const double saving = bytes_per_element(spec.precision) - held_weight_bytes(*spec.fp8);
  for (auto& use : row.items) {
    if (use.name == "weights") use.bytes -= stage_linear_parameters(spec, stage) * saving;
  }
}

// The transpose of a block's largest linear weight, in fp8.
double fp8_param_transpose_bytes(const WorkloadSpec& spec) {
  if (!spec.fp8 || !held_weight_transposed_per_dgrad(*spec.fp8)) return 0.0;
  const auto& m = spec.model;
  const double widest = static_cast<double>(std::max({m.qkv_width(), m.mlp_up_width(), m.ffn, m.hidden}));
  return static_cast<double>(m.hidden) * widest / static_cast<double>(spec.parallel.tensor);
}

// The blocks a rank of `stage` holds (0-based over the model): chunk c's
// are virtual stage c * pipeline + stage's.
std::vector<std::int64_t> stage_layers(const WorkloadSpec& spec, std::int64_t stage) {
  const auto& par = spec.parallel;
  std::vector<std::int64_t> layers;
  for (std::int64_t c = 0; c < par.virtual_stages; ++c) {
    const std::int64_t first = chunk_first_block(spec, c * par.pipeline + stage);
    const std::int64_t count = chunk_block_count(spec, c * par.pipeline + stage);
    for (std::int64_t l = first; l < first + count; ++l) layers.push_back(l);
  }
  return layers;
}

// A block's activation bytes averaged over the stage's blocks: under full
// every k, or the first N of each chunk, only some are checkpointed.
double mean_layer_activation_bytes(const WorkloadSpec& spec, std::int64_t stage) {
  if (!recomputes_some_blocks(spec)) return layer_activation_bytes(spec);
  const auto layers = stage_layers(spec, stage);
  const CheckpointedBlocks blocks = checkpointed_blocks(spec);
  double sum = 0.0;
  for (std::int64_t l : layers) {
    sum += block_checkpointed(spec.recompute, blocks, l) ? layer_activation_bytes(spec) : full_layer_bytes(spec);
  }
  return sum / static_cast<double>(layers.size());
}

// What a re-run block holds besides what it kept: under full its whole
// set, under selective_op the tensors its policy did not save.
double recompute_transient_bytes(const WorkloadSpec& spec) {
  switch (spec.recompute) {
    case ActivationRecompute::full: return full_layer_bytes(spec);
    case ActivationRecompute::selective_op: return std::max(0.0, full_layer_bytes(spec) - layer_activation_bytes(spec));
    default: return 0.0;
  }
}

// PyTorch FSDP (1 and 2) wraps each block as a unit and the model as the
// root, whose own parameters (embedding, final norm, head) it does not
// reshard after forward ("for the root, do not reshard after forward since
// ... the parameters would be freed and all-gathered immediately",
// torch/distributed/fsdp/_fully_shard/_fsdp_state.py, _lazy_init): they stay
// gathered, in the compute dtype, all step.
double fsdp_root_bytes(const WorkloadSpec& spec, std::int64_t stage) {
  double params = 0.0;
  for (std::int64_t c = 0; c < spec.parallel.virtual_stages; ++c) {
    for (const auto& u : stage_chunk(spec, stage, c).units) {
      if (u.name == "embedding" || u.name == "head") params += u.parameters;
    }
  }
  return params * bytes_per_element(spec.precision);
}

double largest_block_parameters(const WorkloadSpec& spec, std::int64_t stage) {
  double largest = 0.0;
  for (std::int64_t c = 0; c < spec.parallel.virtual_stages; ++c) {
    for (const auto& u : stage_chunk(spec, stage, c).units) {
      if (u.name != "embedding" && u.name != "head") largest = std::max(largest, u.parameters);
    }
  }
  return largest;
}

// A block's backward under FSDP holds its gathered weights and the next
// block's, prefetched (both in the compute dtype), its unsharded gradient
// and the copy in the reduce dtype (grad_dtype) the reduce-scatter sends
// while the next block's backward runs (FSDP2's foreach_reduce). Forward
// holds only the two gathered blocks, so backward is the larger.
double fsdp_block_working_bytes(const WorkloadSpec& spec, std::int64_t stage) {
  const double block = largest_block_parameters(spec, stage);
  const double compute = bytes_per_element(spec.precision);
  return block * (3.0 * compute + bytes_per_element(spec.ddp.grad_dtype));
}

// FSDP under pipeline parallelism (data_parallel_sync.hpp, keeps_gathered)
// holds every unit of the stage gathered in the compute dtype, and its
// gradients accumulated unsharded in the reduce dtype (FSDP2 upcasts the
// accumulated gradient to reduce_dtype while gradient sync is off:
// pytorch/pytorch torch/distributed/fsdp/_fully_shard/_fsdp_param.py,
// to_accumulated_grad_if_needed), all step.
double fsdp_pipeline_held_bytes(const WorkloadSpec& spec, std::int64_t stage) {
  return stage_parameters(spec, stage) * bytes_per_element(spec.precision) +
         stage_trainable_parameters(spec, stage) * bytes_per_element(spec.ddp.grad_dtype);
}

// What a rank holds beside its state and kept activations, at the larger of
// two moments that do not overlap: the loss (logits and their fp32 copies,
// last stage only) and a block's backward (its re-run tensors, FSDP's
// gathered blocks and gradients). CP's K/V buffers and ZeRO-3's two
// gathered units count at both.
double temporary_bytes(const WorkloadSpec& spec, std::int64_t stage) {
  const auto& par = spec.parallel;
  double always = context_buffer_bytes(spec);
  const bool sharded = shards_weights(spec.strategy) && par.gradient_replicas() > 1;
  double loss = stage == par.pipeline - 1 ? loss_buffer_bytes(spec, 1.0) : 0.0;
  double block = recompute_transient_bytes(spec) + fp8_param_transpose_bytes(spec);
  if (sharded && spec.strategy == Strategy::fsdp && par.pipeline > 1) {
    always += fsdp_pipeline_held_bytes(spec, stage);
  } else if (sharded && spec.strategy == Strategy::fsdp) {
    always += fsdp_root_bytes(spec, stage);
    loss += largest_block_parameters(spec, stage) * bytes_per_element(spec.precision);  // the last block, kept
    block += fsdp_block_working_bytes(spec, stage);
  } else if (sharded) {
    // ZeRO-3 holds the unit being computed and the one being prefetched.
    always += 2.0 * largest_unit_parameters(spec, stage) * bytes_per_element(spec.precision);
  }
  return always + std::max(loss, block);
}

StageMemory pipeline_stage(const WorkloadSpec& spec, std::int64_t stage) {
  const auto& par = spec.parallel;
  StageMemory row{stage, "stage " + std::to_string(stage), {}, 0, {}};
  row.items = spec.finetune
                  ? finetune_state(spec, stage)
                  : model_state(spec, stage_parameters(spec, stage), stage_expert_parameters(spec, stage), true);
  if (holds_fp8_params(spec)) {
    move_fp8_params_into_weights(spec, stage, row);
  } else if (spec.fp8) {
    row.items.push_back({"fp8_weight_copies", fp8_weight_copy_bytes(spec, stage)});
  }
  const auto steps = stage_schedule(par.schedule, par.pipeline, stage, spec.grad_accum, par.virtual_stages);
  row.in_flight = peak_in_flight(steps);
  // Blocks that run no backward (frozen below everything that trains) keep no
  // activations. In flight are chunks of the stage; an uneven split's are
  // counted at their mean.
  const double layers =
      static_cast<double>(spec.finetune ? stage_backward_layers(spec, stage) : stage_block_count(spec, stage)) /
      static_cast<double>(par.virtual_stages);
  row.items.push_back(
      {"activations", static_cast<double>(row.in_flight) * layers * mean_layer_activation_bytes(spec, stage)});
  row.items.push_back({"temporary", temporary_bytes(spec, stage)});
  offload_to_host(spec, stage, row);
  return row;
}

// An MLP keeps each layer's input and its pre-activation output for backward
// (2 tensors per width after the input), and the fp32 softmax of the loss.
StageMemory mlp_row(const WorkloadSpec& spec) {
  const MlpSpec& m = *spec.mlp;
  StageMemory row{0, "stage 0", model_state(spec, static_cast<double>(m.parameter_count()), 0.0, true), 1, {}};
  double saved_elements = static_cast<double>(m.widths.front());
  for (std::size_t i = 1; i < m.widths.size(); ++i) saved_elements += 2.0 * static_cast<double>(m.widths[i]);
  const double samples = static_cast<double>(spec.micro_batch);
  row.items.push_back({"activations", samples * saved_elements * bytes_per_element(spec.precision)});
  row.items.push_back({"temporary", samples * static_cast<double>(m.widths.back()) * kFp32Bytes});
  return row;
}

// A CNN keeps its input and the layer outputs backward reads
// (cnn_saved_elements_per_sample), plus the fp32 softmax of the loss.
StageMemory cnn_row(const WorkloadSpec& spec) {
  const CnnSpec& m = *spec.cnn;
  StageMemory row{0, "stage 0", model_state(spec, static_cast<double>(m.parameter_count()), 0.0, true), 1, {}};
  const double samples = static_cast<double>(spec.micro_batch);
  row.items.push_back({"activations", samples * cnn_saved_elements_per_sample(m) * bytes_per_element(spec.precision)});
  row.items.push_back({"temporary", samples * static_cast<double>(m.classes()) * kFp32Bytes});
  return row;
}

// An LSTM LM keeps per step its activated gates, cell and hidden state
// (lstm_saved_elements_per_sequence), plus the fp32 softmax over every
// token's vocabulary logits.
StageMemory lstm_row(const WorkloadSpec& spec) {
  const LstmSpec& m = *spec.lstm;
  StageMemory row{0, "stage 0", model_state(spec, static_cast<double>(m.parameter_count()), 0.0, true), 1, {}};
  const double sequences = static_cast<double>(spec.micro_batch);
  row.items.push_back(
      {"activations", sequences * lstm_saved_elements_per_sequence(m) * bytes_per_element(spec.precision)});
  row.items.push_back({"temporary", sequences * static_cast<double>(m.seq_len * m.vocab) * kFp32Bytes});
  return row;
}

std::vector<StageMemory> data_parallel_rows(const WorkloadSpec& spec) {
  const double params = static_cast<double>(spec.model.parameter_count());
  const double activations = static_cast<double>(spec.model.layers) * mean_layer_activation_bytes(spec, 0);
  StageMemory master{0, "master", model_state(spec, params, 0.0, true), 1, {}};
  master.items.push_back({"activations", activations});
  master.items.push_back({"temporary", loss_buffer_bytes(spec, static_cast<double>(spec.parallel.data))});
  StageMemory replica{0, "replica", model_state(spec, params, 0.0, false), 1, {}};
  replica.items.push_back({"activations", activations});
  replica.items.push_back({"temporary", loss_buffer_bytes(spec, 1.0)});
  return {master, replica};
}

}  // namespace

double StageMemory::total_bytes() const {
  double sum = 0.0;
  for (const auto& i : items) sum += i.bytes;
  return sum;
}

double StageMemory::host_bytes() const {
  double sum = 0.0;
  for (const auto& i : host_items) sum += i.bytes;
  return sum;
}

double layer_activation_bytes(const WorkloadSpec& spec) {
  if (spec.recompute == ActivationRecompute::selective_op) {
    const double elements =
        selective_op_saved_elements_per_token(spec.model, spec.parallel.tensor, sequence_parallel(spec));
    return static_cast<double>(spec.micro_batch * local_positions(spec)) * elements * bytes_per_element(spec.precision);
  }
  if (spec.recompute != ActivationRecompute::full) return full_layer_bytes(spec);
  const double shards = sequence_parallel(spec) ? static_cast<double>(spec.parallel.tensor) : 1.0;
  return sbh(spec) * kLayerInputPerToken / shards;
}

std::vector<StageMemory> estimate_memory(const WorkloadSpec& spec) {
  if (spec.inference) return estimate_inference_memory(spec);
  if (spec.mlp) return {mlp_row(spec)};
  if (spec.cnn) return {cnn_row(spec)};
  if (spec.lstm) return {lstm_row(spec)};
  if (spec.strategy == Strategy::data_parallel) return data_parallel_rows(spec);
  std::vector<StageMemory> rows;
  for (std::int64_t s = 0; s < spec.parallel.pipeline; ++s) rows.push_back(pipeline_stage(spec, s));
  return rows;
}

const StageMemory& memory_of_rank(const std::vector<StageMemory>& rows, const WorkloadSpec& spec,
                                  std::int64_t pipeline_stage, bool master) {
  if (spec.strategy == Strategy::data_parallel) return rows[master ? 0 : 1];
  return rows[static_cast<std::size_t>(pipeline_stage)];
}

}  // namespace simctl
