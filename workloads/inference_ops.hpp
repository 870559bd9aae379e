#pragma once
// The ops one tensor-parallel rank runs for one serving step of a dense
// decoder-only transformer (or of a pipeline stage of it): a prefill over
// the prompts of a batch, or one decode step that adds a token to each
// sequence. The same layers as training's forward pass, shaped by what
// serving does:
//
//   prefill  every GEMM on batch x prompt rows (compute-bound), causal fused
//            attention over the prompt, K and V written into the cache, and
//            the LM head on each sequence's last token only
//   decode   every GEMM on batch rows (one token per sequence), so each reads
//            its whole weight shard for few FLOPs; attention of each new
//            token over the cached context, which reads the sequence's K and
//            V (memory-bound: 2 FLOPs per cached value per query head of the
//            KV head)
//
// TP all-reduces after the attention output and MLP down projections
// (Megatron's row-parallel layers, as vLLM and TensorRT-LLM run them) and an
// all-gather of the logits. Nothing here decides memory- or compute-bound:
// the compute model prices each op's FLOPs and bytes.
#include <cstdint>
#include <vector>

#include "workloads/transformer_ops.hpp"

namespace simctl {

enum class InferencePhase : std::uint8_t { prefill, decode };

struct InferencePass {
  TransformerSpec model;
  InferencePhase phase = InferencePhase::decode;
  std::int64_t batch = 1;   // sequences
  std::int64_t cached = 0;  // tokens each sequence already holds in the KV cache (decode)
  std::int64_t prompt = 0;  // prompt tokens of each sequence (prefill)
  DType dtype = DType::bf16;
  DType kv_dtype = DType::bf16;
  std::int64_t tensor = 1;
  std::int64_t first_layer = 0;
  std::int64_t end_layer = 0;
  bool embedding = true;  // this stage starts with the embedding
  bool head = true;       // this stage ends with the final norm and the LM head

  // Tokens this pass runs through the layers: batch x prompt, or batch.
  std::int64_t token_rows() const { return phase == InferencePhase::prefill ? batch * prompt : batch; }
};

std::vector<ModelOp> inference_ops(const InferencePass& pass);

// One layer's K and V of one token on one TP rank, in bytes.
double kv_bytes_per_token_layer(const TransformerSpec& m, std::int64_t tensor, DType kv_dtype);

}  // namespace simctl
