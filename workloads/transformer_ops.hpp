#pragma once
// The ops of one forward and one backward pass of a decoder-only transformer,
// GPT or Llama layout (or of a pipeline
// chunk of it: a range of layers, with or without the embedding and the head)
// over one micro-batch, in execution order, as one tensor-parallel rank runs
// them. Each op is either compute (FLOPs and bytes for the roofline) or a
// collective in the rank's tensor-parallel group (Megatron-LM's f/g operators:
// all-reduce, or all-gather / reduce-scatter under sequence parallelism) or,
// for a mixture of experts, in its expert-parallel group (token all-to-alls).
// Backward compute ops list the parameter gradients they complete (gradient
// sync waits on those). Planners wrap these lists into per-rank traces; this
// file knows nothing about ranks or streams.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "models/devices/compute_work.hpp"
#include "models/network/collective_op.hpp"
#include "workloads/activation_checkpointing.hpp"
#include "workloads/trace.hpp"
#include "workloads/transformer_spec.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

// Which of the rank's groups a model collective runs over: its tensor-parallel
// group, its expert-parallel group (a mixture of experts' token dispatch
// and combine all-to-alls), or its context-parallel group (attention over a
// sequence split on CP ranks: context_parallel.hpp).
enum class ModelGroup : std::uint8_t { tensor, expert, context };

// A context-parallel ring step (ring attention) belongs to one of two
// exchanges of a block: the K/V blocks travelling around the ring, or in
// backward their dK/dV accumulators following them back to their owner.
enum class ContextRing : std::uint8_t { kv, dkv };

// A collective over the tensor-parallel (or expert-parallel) group. The compute op `consumer_offset`
// places after the collective's position waits for it (0: the very next one);
// a positive offset lets the collective overlap the compute ops in between,
// as Megatron overlaps backward all-reduces with weight-gradient GEMMs.
struct TensorComm {
  CollectiveOp op = CollectiveOp::all_reduce;
  double bytes = 0.0;  // nccl-tests size (all-gather / reduce-scatter: the full tensor)
  int consumer_offset = 0;
  ModelGroup group = ModelGroup::tensor;
  // Pipelined with GEMM chunks by TE userbuffers (tp_overlap.hpp): it runs
  // on the rank's overlap stream.
  bool overlapped = false;
  // One step of a ring exchange instead of a collective: `bytes` go to the
  // next rank of the TP group while as many come from the previous one
  // (`op` unused). The consumer waits for the receive.
  bool ring_step = false;
  // A context-parallel ring step (group context): which exchange it
  // continues, and whether it starts it (its send then waits for the last
  // compute op; later steps forward what the exchange's previous step
  // received). A dK/dV step's send also waits for the last compute op (the
  // block it adds its share in). A negative consumer_offset: no compute op
  // waits for the receive (only the exchange's next send does).
  ContextRing ring = ContextRing::kv;
  bool ring_start = false;
};

struct ModelOp {
  std::string name;
  OpPhase phase = OpPhase::forward;
  ComputeWork work;
  std::vector<std::size_t> grads_ready;  // indices into parameter_tensors(model)
  std::optional<TensorComm> comm;        // set: this op is a TP collective, `work` is unused
  bool host_issued = true;               // Op::host_issued
};

struct PassShape {
  TransformerSpec model;
  std::int64_t micro_batch = 1;    // sequences in this pass
  DType dtype = DType::bf16;       // activations and weights
  DType grad_dtype = DType::bf16;  // weight gradients (written by wgrad GEMMs)
  ActivationRecompute recompute = ActivationRecompute::none;
  CheckpointedBlocks recompute_blocks;  // full: which blocks (activation_checkpointing.hpp)
  AttentionKernel attention = AttentionKernel::flash2;
  double dropout = 0.0;                // > 0: dropout kernels on scores and residual branches
  std::int64_t tensor = 1;             // TP degree: heads, MLP columns and vocabulary split this many ways
  bool sequence = false;               // SP: norms, dropout and residuals on s/t rows
  std::int64_t expert = 1;             // EP degree: a mixture of experts' experts split this many ways
  std::int64_t first_layer = 0;        // this chunk's blocks: [first_layer, end_layer)
  std::int64_t end_layer = -1;         // -1: through the last layer
  bool embedding = true;               // this chunk starts with the embedding
  bool head = true;                    // this chunk ends with the final norm, LM head and loss
  double kernel_time_factor = 1.0;     // the framework's (frameworks.yaml), applied to every compute op
  std::optional<Fp8Training> fp8;      // set: linear layers' GEMMs in fp8, with their casts (fp8_ops.cpp)
  double fp8_weight_cast_share = 1.0;  // of each weight's fp8 cast, the part this pass pays
  std::optional<Finetune> finetune;    // set: frozen weights, adapters (lora_ops.cpp)
  // TE userbuffers: each block's TP all-gathers and reduce-scatters split
  // into chunks pipelined with their GEMMs (tp_overlap.hpp); needs SP.
  bool tp_comm_overlap = false;
  // torch's AsyncTP instead: the same pairs as the GEMM's row chunks beside
  // copy-engine transfers on symmetric memory (tp_overlap.hpp).
  bool async_tp = false;
  // Megatron's column-parallel backward (input re-gathered beside the dgrad
  // GEMM, input gradient reduced beside the wgrad GEMM), or, false,
  // DTensor's (gathered input saved, reduction after both GEMMs).
  bool tp_async_backward = true;
  // Each plain SP collective also copies the whole tensor (batch-first
  // activations sharded on dim 1, more than one sequence a micro-batch).
  bool tp_sequence_dim_copies = false;
  std::int64_t context = 1;  // CP degree: the sequence split this many ways (context_parallel.hpp)
  ContextAlgorithm context_algorithm = ContextAlgorithm::ring;
  // The loss runs in fp32 on an upcast copy of the logits (PyTorch autocast's
  // cross_entropy) instead of one fused kernel in the pass dtype.
  bool loss_in_fp32 = false;
  // The block's RMSNorm, RoPE, SwiGLU and GQA copies run as eager PyTorch
  // kernel chains (eager_op_chains.hpp) instead of one fused kernel each.
  bool eager_op_chains = false;

  std::int64_t last_layer_end() const { return end_layer < 0 ? model.layers : end_layer; }
};

// The pass over everything a shape covers built from the full model.
PassShape whole_model_shape(const TransformerSpec& model, std::int64_t micro_batch, DType dtype, DType grad_dtype);

// Embedding, every block, final LayerNorm, LM head and the loss.
std::vector<ModelOp> forward_ops(const PassShape& shape);
// The loss gradient, LM head, blocks in reverse, then the embedding.
std::vector<ModelOp> backward_ops(const PassShape& shape);

// Stretches a kernel's time by `factor` on both roofline sides (its FLOPs
// and bytes become effective counts; the step's model FLOPs are unaffected)
// and marks it a kernel of a sustained training step (ComputeWork::sustained).
ComputeWork with_time_factor(ComputeWork work, double factor);

// Causal attention: FlashAttention skips the masked upper triangle, so it
// executes half the score/value products of 4*b*s^2*h.
inline constexpr double kCausalAttentionFraction = 0.5;
// FlashAttention-2 backward runs 5 matrix products per block against the
// forward's 2 (dQ, dK, dV, dP and recomputing P).
inline constexpr double kAttentionBackwardFlopsRatio = 2.5;

}  // namespace simctl
