#pragma once
// A GPT-style decoder-only transformer described by its dimensions. Only the
// GPT-2/GPT-3 layout is modelled now: learned position embeddings, pre-LN
// blocks with LayerNorm (weight + bias), biased QKV/output/MLP projections, a
// GeLU MLP and an LM head tied to the token embedding. The GQA and gated-MLP
// fields exist so that configs can name them; the config reader refuses
// non-default values until the op builder supports them.
#include <cstdint>
#include <string>

namespace simctl {

struct TransformerSpec {
  std::string name;    // catalogue id or "inline"
  std::string source;  // where the dimensions come from (paper, model card)
  std::int64_t layers = 0;
  std::int64_t hidden = 0;    // d_model
  std::int64_t heads = 0;     // attention heads
  std::int64_t kv_heads = 0;  // == heads for multi-head attention (GPT)
  std::int64_t ffn = 0;       // MLP inner width; 4 * hidden for GPT
  std::int64_t vocab = 0;
  std::int64_t seq_len = 0;  // context length = learned position embeddings
  bool gated_mlp = false;    // SwiGLU (not supported yet)

  std::int64_t head_dim() const { return hidden / heads; }
  // Output width of the fused QKV projection: Q has `hidden` columns, K and V
  // one head_dim per KV head each.
  std::int64_t qkv_width() const { return hidden + 2 * kv_heads * head_dim(); }

  std::int64_t embedding_parameters() const;  // token + position tables
  std::int64_t layer_parameters() const;      // one transformer block
  std::int64_t final_norm_parameters() const;
  // Exact count; the LM head shares the token embedding so adds nothing.
  std::int64_t parameter_count() const;
};

}  // namespace simctl
