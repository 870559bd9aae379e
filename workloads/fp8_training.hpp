#pragma once
// FP8 training as NVIDIA Transformer Engine runs it (`precision: fp8`): the
// GEMMs of a block's linear layers (QKV, attention output, MLP up and down)
// take fp8 operands (E4M3 forward, E5M2 gradients) at the GPU's FP8 rate and
// write bf16; everything else (attention core, norms, softmax, embedding,
// LM head and loss, gradients, master weights and optimizer) stays in the
// workload's bf16/fp32. The price of fp8 (fp8_ops.cpp, memory_estimate.cpp):
//   - casting each linear's input to fp8 with its transpose (TE's
//     cast_transpose: read 2 B, write 1 + 1 B per element), the output
//     gradient likewise in backward, and each weight once per step (weights
//     are cached in fp8 over a step's micro-batches, Megatron's
//     is_first_microbatch), all memory-bound;
//   - per-tensor delayed scaling: each layer's amax history and scales
//     rolled and updated (memory-bound, kFp8AmaxHistory entries per tensor);
//   - the fp8 weight and its transpose kept beside the bf16 weight
//     (kFp8WeightCopyBytes + fp8_transpose_bytes per linear parameter), while the saved GEMM
//     inputs shrink to 1 byte per element.
// Options: Megatron/TE's fp8 all-gathers of GEMM inputs under sequence
// parallelism (`tp_all_gather`), torchtitan Float8's fp8 all-gather of
// FSDP-sharded weights (`param_all_gather`), and how scales are found
// (`scaling`).
namespace simctl {

// How each fp8 tensor's scale is found. TE's recipes take it from an amax
// history of earlier steps (delayed: the cast reads its input once). torchao's
// Float8Linear, which torchtitan runs, computes it from the tensor itself
// (dynamic, tensorwise): a max-reduction pass over the high-precision tensor
// before the cast can start, and no history to roll.
enum class Fp8Scaling { delayed, dynamic };

struct Fp8Training {
  // The format of the linear layers' GEMM operands: fp8, or fp4 under
  // `precision: fp4` (TE's NVFP4BlockScaling on Blackwell, MXFP4 on CDNA4),
  // which runs the same casts and scaling at the GPU's FP4 rate.
  DType gemm_dtype = DType::fp8;
  bool tp_all_gather = false;     // SP all-gathers feeding fp8 GEMMs move fp8 (1 B/element)
  bool param_all_gather = false;  // ZeRO-3/FSDP gather linear weights in fp8
  // Linear weights held in fp8 only (TE's fp8_model_init: NeMo's fp8_params,
  // Megatron's --fp8-param-gather): no bf16 copy beside the fp8 weight and its
  // transpose, no per-step weight cast (the optimizer writes fp8; frozen
  // weights never change), and ZeRO-1/2 gather the updated linears in fp8.
  bool params = false;
  // The MLP activation's input (GeLU's, or SwiGLU's gate and up) saved for
  // backward in fp8 (Megatron's --activation-func-fp8-input-store; the
  // FP8_ACT/FP8_ACTIVATION switch of the MLPerf LoRA configs). Memory only:
  // the cast is fused into the activation kernel.
  bool activation_input = false;
  // The fused attention forward and backward on fp8 operands (Transformer
  // Engine's FP8 DotProductAttention through cuDNN: NeMo's
  // fp8_dot_product_attention, FP8_DPA with NVTE_FP8_DPA_BWD in the MLPerf
  // LoRA configs). Needs the cudnn attention kernel with an fp8 fit.
  bool dot_product_attention = false;
  Fp8Scaling scaling = Fp8Scaling::delayed;
  // Per-tensor fp8 operands carry a transposed copy: Hopper's fp8 GEMMs take
  // only the TN layout, so each cast writes the transpose too, TE keeps a
  // weight's, and an fp8-held weight's dgrad makes it first. false where the
  // GPU's fp8 GEMMs read any layout and the framework keeps none (Transformer
  // Engine on compute capability 10.x; sim/scenario/fp8_layout_choice.hpp).
  // NVFP4 keeps its columnwise copy either way: its block scales run along
  // the other axis.
  bool transposes = true;
};

// The fp8 copy of a linear weight (its transpose beside it where the GPU's
// fp8 GEMMs take TN only: fp8_transpose_bytes).
inline constexpr double kFp8WeightCopyBytes = 1.0;
// Bytes per element a cast moves: read bf16, write fp8 (and the transpose
// where one is kept: fp8_transpose_bytes).
inline constexpr double kFp8CastBytesPerElement = 3.0;
// An fp8 operand's transposed copy, per element, where Fp8Training::transposes.
inline double fp8_transpose_bytes(const Fp8Training& fp8) { return fp8.transposes ? 1.0 : 0.0; }
// A linear weight held in NVFP4 (`params` under precision fp4): TE's
// NVFP4Tensor keeps rowwise and columnwise data, each 0.5 B per element with
// one fp8 scale per 16, as the MLPerf v5.1 NVFP4 LoRA runs pre-quantize their
// frozen base (mlcommons/training_results_v5.1@441d65f4 NVIDIA/benchmarks/
// llama2_70b_lora/implementations/nemo/custom_callbacks.py,
// _get_quantized_params_cpu: asserts both). No per-step cast or transpose.
inline constexpr double kNvfp4HeldWeightBytes = 2.0 * (0.5 + 1.0 / 16.0);
// Bytes per linear weight held under `params`: fp8's 1, or NVFP4's two copies.
inline double held_weight_bytes(const Fp8Training& fp8) {
  return fp8.gemm_dtype == DType::fp4 ? kNvfp4HeldWeightBytes : kFp8WeightCopyBytes;
}
// Whether each dgrad of a held weight makes its transpose first: an fp8
// weight whose GEMM takes TN only. An NVFP4 one holds its columnwise copy.
inline bool held_weight_transposed_per_dgrad(const Fp8Training& fp8) {
  return fp8.params && fp8.transposes && fp8.gemm_dtype == DType::fp8;
}
// Dynamic scaling's amax pass reads the bf16 tensor once more before the cast.
// torchao's tensorwise cast under torch.compile writes the fp8 tensor and the
// transposed copy its backward GEMMs need from that one read, as TE's
// cast_transpose does, so the cast itself is priced as TE's (assumed: inductor
// fuses the two outputs; unfused, each transpose would move 2 B more).
inline constexpr double kFp8AmaxReadBytesPerElement = 2.0;
// amax history length per fp8 tensor: NeMo's recipes (fp8_amax_history_len
// 1024, fp8_amax_compute_algo max).
inline constexpr double kFp8AmaxHistory = 1024.0;
// fp8 tensors per linear layer that carry a scale: input, weight, output gradient.
inline constexpr double kFp8TensorsPerLinear = 3.0;
inline constexpr double kFp8LinearsPerBlock = 4.0;  // QKV, attention output, MLP up (+gate), MLP down

}  // namespace simctl
