#pragma once
// What one training job is: the model, how it is spread over GPUs, batch
// sizes, numeric formats and the data-parallel strategy's knobs. Read from the
// `workload:` section of a config; every check names the offending field.
#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_node.hpp"
#include "sim/core/dtype.hpp"
#include "sim/core/units.hpp"
#include "workloads/finetune.hpp"
#include "workloads/fp8_training.hpp"
#include "workloads/inference_spec.hpp"
#include "workloads/input_pipeline.hpp"
#include "workloads/mlp_spec.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/offload.hpp"
#include "workloads/transformer_spec.hpp"

namespace simctl {

// The parallel dimensions a rank's coordinates run over.
enum class ParallelDim : std::uint8_t { tensor, data, pipeline, context };

// How context parallelism runs attention over a sequence split on CP ranks
// (context_parallel.hpp): ring (Megatron-Core's p2p: K/V blocks passed
// around the CP ring beside the blockwise attention), all_gather (Llama 3:
// K/V gathered whole before attention) or all_to_all (DeepSpeed-Ulysses:
// heads and sequence swapped by all-to-alls around attention).
enum class ContextAlgorithm : std::uint8_t { ring, all_gather, all_to_all, torch_all_gather };

enum class PipelineSchedule : std::uint8_t { gpipe, one_f_one_b, interleaved };

struct ParallelPlan {
  std::int64_t data = 1;      // data-parallel replicas
  std::int64_t tensor = 1;    // Megatron tensor-parallel degree (splits heads and the MLP)
  std::int64_t pipeline = 1;  // pipeline stages (contiguous layers each)
  bool sequence = false;      // Megatron sequence parallelism (needs tensor > 1 to matter)
  // Megatron-Core's --tp-comm-overlap: TE userbuffers pipeline each block's
  // sequence-parallel all-gathers and reduce-scatters with its GEMMs
  // (tp_overlap.hpp). Needs sequence and tensor > 1.
  bool tp_comm_overlap = false;
  // torchtitan's AsyncTP (torch.compile's micro-pipelined TP on symmetric
  // memory): each block's sequence-parallel all-gather before a GEMM and
  // reduce-scatter after one become the GEMM's row chunks beside copy-engine
  // transfers (tp_overlap.hpp). Needs sequence, tensor > 1 and compile.
  bool async_tp = false;
  // Expert parallelism (Megatron-core / DeepSpeed-MoE): it subdivides the
  // data-parallel ranks. `expert` consecutive DP ranks (same TP and PP
  // coordinates) form an EP group holding all experts, experts / expert each;
  // the data / expert ranks holding the same experts form its
  // expert-data-parallel group, where expert gradients are summed. The world
  // stays data * tensor * pipeline.
  std::int64_t expert = 1;
  // Context parallelism (CP): each sequence split over `context` ranks that
  // hold the same weights; their gradients are summed with the data-parallel
  // replicas' (Megatron's data_parallel_group_with_cp). The world is
  // data * context * tensor * pipeline.
  std::int64_t context = 1;
  ContextAlgorithm context_algorithm = ContextAlgorithm::ring;
  PipelineSchedule schedule = PipelineSchedule::one_f_one_b;
  std::int64_t virtual_stages = 1;  // model chunks per stage (interleaved 1F1B)
  // Blocks of each virtual stage (chunk * pipeline + stage) where the split is
  // not even (layer_split.hpp); empty: layers / (pipeline * virtual_stages) each.
  std::vector<std::int64_t> stage_layers;
  // Rank numbering, fastest-varying dimension first: Megatron's default puts
  // TP ranks next to each other, so with GPUs numbered node by node a TP group
  // stays inside a node. CP ranks always come right after tensor (Megatron's
  // tp-cp-ep-dp-pp), wherever tensor is in this order.
  std::array<ParallelDim, 3> order{ParallelDim::tensor, ParallelDim::data, ParallelDim::pipeline};
  std::vector<std::uint32_t> gpus;  // rank -> GPU index; empty = rank r on GPU r
  // Ranks fill the first this many GPUs of each node in turn (0: every GPU),
  // as Slurm's --segment places a job on part of each NVLink domain; the
  // scenario turns it into `gpus` once it knows the system's nodes.
  std::int64_t gpus_per_node = 0;

  std::int64_t world_size() const { return data * context * tensor * pipeline; }
  // Ranks holding the same weights, over which gradients are summed (and
  // ZeRO shards): the data-parallel replicas times the CP ranks.
  std::int64_t gradient_replicas() const { return data * context; }
  std::int64_t expert_data() const { return data / expert; }  // replicas of each expert
};

// How data-parallel replicas keep weights in step. ddp: bucketed gradient
// all-reduce. data_parallel: PyTorch nn.DataParallel (one process, master
// GPU). zero1/zero2: gradients reduce-scattered, optimizer states (and for
// zero2 gradients) sharded, updated weights all-gathered. zero3/fsdp:
// weights sharded too, all-gathered before each layer's forward and backward.
enum class Strategy : std::uint8_t { ddp, data_parallel, zero1, zero2, zero3, fsdp };
enum class Optimizer : std::uint8_t { adam };
// none: keep every activation. selective: keep all but the attention core
// (softmax, dropout, QK^T and AV), re-run it in backward (Korthikanti et al.
// 2022). selective_op: torchtitan's op-level selective checkpointing: a block
// keeps its input, the attention kernel's output and every other matmul's
// output, and re-runs the rest (activation_checkpointing.hpp). full: keep
// only each layer's input and re-run the layer (with recompute_every k, only
// every k-th layer; the others keep everything: torchtitan's per-layer AC).
enum class ActivationRecompute : std::uint8_t { none, selective, selective_op, full };

// The word a config writes for each choice ("1f1b", "zero2", "selective"):
// the parser reads them and `simctl search` writes its plans with them, from
// one table each (workload_config.cpp).
std::string_view config_word(PipelineSchedule schedule);
std::string_view config_word(Strategy strategy);
std::string_view config_word(ActivationRecompute recompute);
// flash2, flash3, cudnn: one fused kernel (no s^2 tensor) each way, priced by
// that kernel's fit (models/devices/attention_kernel.hpp). unfused:
// Megatron-LM's 2021-22 core attention, two batched GEMMs around a fused
// scale-mask-softmax and a dropout, all over the full b*a*s^2 score tensor.
enum class AttentionKernel : std::uint8_t { flash2, flash3, cudnn, unfused };
std::string_view config_word(AttentionKernel kernel);
std::string_view config_word(ContextAlgorithm algorithm);

// PyTorch DistributedDataParallel's knobs.
struct DdpOptions {
  Bytes bucket_size_bytes = 25 * kMiB;       // bucket_cap_mb
  Bytes first_bucket_size_bytes = 1 * kMiB;  // dist._DEFAULT_FIRST_BUCKET_BYTES
  bool overlap = true;                       // all-reduce buckets during backward
  // zero1/zero2 (Megatron-Core's distributed optimizer): all-gather updated
  // weights per bucket under the next step's first forward, not at once
  // after the optimizer (data_parallel_sync.hpp).
  bool overlap_param_gather = false;
  DType grad_dtype = DType::bf16;  // gradients and their all-reduce
};

struct WorkloadSpec {
  TransformerSpec model;       // the transformer; for an MLP, CNN or LSTM only its name is set
  std::optional<MlpSpec> mlp;  // set: the model is this MLP (DDP only)
  std::optional<CnnSpec> cnn;  // set: the model is this CNN (DDP only)
  // Set: the model is this LSTM language model (DDP only); model.seq_len
  // mirrors its time steps, so tokens per sample read alike for every LM.
  std::optional<LstmSpec> lstm;

  // An MLP, CNN or LSTM: a generator that runs pure data parallelism only.
  bool data_parallel_only_model() const { return mlp || cnn || lstm; }
  ParallelPlan parallel;
  Strategy strategy = Strategy::ddp;
  std::int64_t micro_batch = 1;   // sequences per GPU per forward/backward
  std::int64_t global_batch = 1;  // sequences per optimizer step, all GPUs
  std::int64_t grad_accum = 1;    // derived: global / (micro * data): micro-batches per pipeline per step
  DType precision = DType::bf16;  // compute dtype of forward/backward
  // Set by `precision: fp8`: the linear layers' GEMMs in fp8 (fp8_training.hpp);
  // `precision` then stays bf16 for everything else.
  std::optional<Fp8Training> fp8;
  // Set by `finetune:`: which weights train (finetune.hpp); unset, all do.
  std::optional<Finetune> finetune;
  Optimizer optimizer = Optimizer::adam;
  DdpOptions ddp;
  ActivationRecompute recompute = ActivationRecompute::none;
  // Under `full`: every recompute_every-th block (the k-th, 2k-th, ... counted
  // from 1) is checkpointed; 1 = all of them.
  std::int64_t recompute_every = 1;
  // Under `full`: only the first recompute_layers blocks of each pipeline
  // chunk are checkpointed (Megatron's --recompute-method block
  // --recompute-num-layers N); 0 = all of them.
  std::int64_t recompute_layers = 0;
  // The config's `attention`, or until the system is known the framework's
  // default (attention_given false): framework_attention by GPU architecture.
  AttentionKernel attention = AttentionKernel::flash2;
  bool attention_given = false;
  std::map<std::string, AttentionKernel, std::less<>> framework_attention;
  // Dropout probability on attention scores and on each residual branch;
  // Megatron's GPT runs use 0.1. Zero means no dropout kernels at all.
  double dropout = 0.0;
  // From workloads/frameworks.yaml: multiplies every compute kernel's time
  // (see that file for what it stands for and how it was fitted).
  // How each micro-batch reaches the GPU (input_pipeline.hpp); the default
  // is a dataset cached in host memory, copied to the GPU ahead of use.
  InputPipeline input;
  // What lives in host memory instead of the GPU's (offload.hpp).
  Offload offload;
  std::string framework = "ideal";
  bool framework_by_default = false;  // the config named none: frameworks.yaml's default_framework chose it
  // The framework's kernel_time_factor; once the system is known, its
  // kernel_time_factor_by_architecture entry for the ranks' GPUs replaces it
  // (sim/scenario/kernel_factor_choice.hpp).
  double kernel_time_factor = 1.0;
  std::map<std::string, double, std::less<>> framework_kernel_time_factor;
  // The framework computes the loss (logits upcast, log-softmax, its
  // gradient) in fp32 whatever the pass dtype, as PyTorch autocast does.
  bool loss_in_fp32 = false;
  // The loss is PyTorch's unfused cross_entropy on an fp32 copy of the
  // logits (torchtitan), which holds fp32 copies of tokens x vocab: the
  // memory side of the loss (memory_estimate.hpp), apart from its timing.
  // False: one fused loss kernel beside the logits (Megatron's
  // vocab-parallel cross-entropy, flash-attn's xentropy in llm-foundry).
  bool loss_unfused_fp32 = false;
  // The framework's AdamW is one fused kernel (false: a for-loop over
  // elementwise kernels; adam_bytes_per_parameter in ddp_trace.hpp).
  bool optimizer_fused = true;
  // The framework's host time to issue one kernel in eager mode (0: never
  // the bound), and whether the step runs as a captured CUDA graph
  // (`cuda_graphs: true`), which the host replays in one call: then the host
  // issues nothing per kernel. host_issue_seconds_per_op() is what the trace
  // carries (Trace::host_issue_seconds_per_op).
  TimePs host_issue_per_kernel = 0;
  bool cuda_graphs = false;
  // The framework's model code runs its blocks' norms, RoPE, SwiGLU and GQA
  // copies as eager kernel chains (eager_op_chains.hpp; torchtitan's Llama),
  // whether it can compile them (torch.compile), and whether this run does
  // (`compile: true`), which fuses each chain into one kernel.
  bool eager_op_chains = false;
  bool framework_compiles = false;
  // The framework's column-parallel backward (frameworks.yaml,
  // tp_async_backward): Megatron's re-gather and reduction beside the GEMMs,
  // or DTensor's saved gathered input and reduction after them.
  bool tp_async_backward = true;
  // SP shards dim 1 of batch-first activations (frameworks.yaml,
  // tp_sequence_dim_copies): a copy of the whole tensor per SP collective.
  bool tp_sequence_dim_copies = false;
  bool compile = false;
  // How the framework's fp8 linears find their scales, where `fp8.scaling`
  // does not say (TE's delayed scaling; torchao's dynamic under torchtitan).
  Fp8Scaling framework_fp8_scaling = Fp8Scaling::delayed;
  // Whether the framework casts a sequence-parallel input to fp8 (or fp4)
  // before gathering it (frameworks.yaml fp8_tp_all_gather): the default of
  // `fp8.tp_all_gather` where the plan has SP.
  bool framework_fp8_tp_all_gather = false;
  // By GPU architecture, whether the framework's per-tensor fp8 operands
  // carry transposes there (frameworks.yaml fp8_transposes_by_architecture;
  // true where not listed): Fp8Training::transposes, resolved for the run's
  // GPUs (sim/scenario/fp8_layout_choice.hpp).
  std::map<std::string, bool, std::less<>> framework_fp8_transposes;
  double host_issue_seconds_per_op() const { return cuda_graphs ? 0.0 : ps_to_seconds(host_issue_per_kernel); }
  // The framework's defaults for the overlaps a config may also set itself.
  struct FrameworkOverlaps {
    bool tp_comm = false;
  } framework_overlaps;
  // Set by `task: inference` (inference_config.hpp): served, not trained;
  // its steps are built by inference_trace.hpp when it runs.
  std::optional<InferenceSpec> inference;
};

// The model's parameter count, whichever kind it is.
std::int64_t parameter_count(const WorkloadSpec& spec);

// `node` is the `workload:` mapping. Model ids resolve in `catalogue`.
WorkloadSpec parse_workload(const ConfigNode& node, const ModelCatalogue& catalogue);
// Same, with the catalogue at ModelCatalogue::default_path().
WorkloadSpec parse_workload(const ConfigNode& node);
// Reads a file whose top level holds a `workload:` section.
WorkloadSpec load_workload_file(const std::string& path);

}  // namespace simctl
