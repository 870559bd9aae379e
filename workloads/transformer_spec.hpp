#pragma once
// A decoder-only transformer described by its dimensions and its layout
// choices. Two families are covered by the same fields:
//  - GPT-2/GPT-3: learned position embeddings, pre-LN blocks with LayerNorm
//    (weight + bias), biased projections, a GeLU MLP, an LM head tied to the
//    token embedding (all the defaults);
//  - Llama 2/3: RoPE (no position table), RMSNorm (weight only), no biases,
//    grouped-query attention (kv_heads < heads), a SwiGLU MLP (gate, up and
//    down matrices) and an untied LM head.
// A mixture-of-experts model (Mixtral) replaces every block's MLP with
// `experts` MLPs of width expert_ffn and a router (a hidden x experts linear
// layer, no bias) that sends each token to `experts_per_token` of them.
// An encoder (BERT, RoBERTa) attends both ways (causal false), normalises
// after each residual add (post-LN: a LayerNorm after the embeddings, none
// after the last block), may add token-type embeddings and a pooler (a
// tanh-activated hidden x hidden layer on the first token), and is trained
// through one of the task heads below instead of the causal LM head.
#include <cstdint>
#include <string>

namespace simctl {

enum class NormKind : std::uint8_t { layer_norm, rms_norm };
enum class PositionKind : std::uint8_t { learned, rope };
enum class NormPlacement : std::uint8_t { pre, post };

// What the last hidden states feed, with HF transformers' layouts:
//  causal_lm                next-token logits over the vocabulary at every
//                           position (an LM head, tied or not);
//  masked_lm                BERT's MLM head (dense + GeLU + LayerNorm, then a
//                           decoder to the vocabulary with its own bias) on
//                           the predicted positions only, plus the NSP
//                           classifier on the pooler when the model has one;
//  sequence_classification  a tanh dense layer on the first token (the
//                           pooler, or RoBERTa's head dense), then `labels`
//                           logits;
//  question_answering       start and end logits at every position (SQuAD).
enum class HeadKind : std::uint8_t { causal_lm, masked_lm, sequence_classification, question_answering };

struct TaskHead {
  HeadKind kind = HeadKind::causal_lm;
  std::int64_t labels = 2;          // sequence_classification's classes
  double predicted_fraction = 1.0;  // masked_lm: positions through the head (NVIDIA's BERT: the masked ones)
};

struct TransformerSpec {
  std::string name;    // catalogue id or "inline"
  std::string source;  // where the dimensions come from (paper, model card)
  std::int64_t layers = 0;
  std::int64_t hidden = 0;    // d_model
  std::int64_t heads = 0;     // attention (query) heads
  std::int64_t kv_heads = 0;  // key/value heads: == heads for MHA (GPT), fewer for GQA
  std::int64_t ffn = 0;       // MLP inner width; 4 * hidden for GPT, intermediate_size for Llama
  std::int64_t vocab = 0;
  std::int64_t seq_len = 0;  // context length (and training sequence length)
  bool gated_mlp = false;    // SwiGLU: down(SiLU(gate(x)) * up(x))
  NormKind norm = NormKind::layer_norm;
  PositionKind position = PositionKind::learned;
  bool linear_bias = true;             // biases on the QKV, output and MLP projections
  bool tied_embeddings = true;         // the LM head reuses the token embedding
  std::int64_t experts = 0;            // MLP experts per block; 0 or 1: a dense MLP
  std::int64_t experts_per_token = 0;  // top-k routing (MoE only)
  std::int64_t expert_ffn = 0;         // an expert's inner width; 0: ffn
  bool causal = true;                  // false: bidirectional attention (an encoder)
  NormPlacement norm_placement = NormPlacement::pre;
  std::int64_t token_types = 0;  // rows of a token-type (segment) embedding; 0: none
  bool pooler = false;           // BERT's pooler, built when the head uses it
  TaskHead head{};               // set by the workload (workload.head)
  // Rows of a learned position table when it is longer than the sequences
  // trained on (workload.seq_len below the model's); 0: seq_len.
  std::int64_t position_rows = 0;

  std::int64_t head_dim() const { return hidden / heads; }
  std::int64_t kv_width() const { return kv_heads * head_dim(); }  // columns of K (and of V)
  // Output width of the fused QKV projection: Q has `hidden` columns, K and V
  // one head_dim per KV head each.
  std::int64_t qkv_width() const { return hidden + 2 * kv_width(); }
  std::int64_t mlp_matrices() const { return gated_mlp ? 3 : 2; }
  // Output width of the (fused) first MLP projection: gate and up side by side.
  std::int64_t mlp_up_width() const { return gated_mlp ? 2 * ffn : ffn; }
  // Weights of a dense block's four linear layers (QKV, attention output,
  // MLP up and down), whole: what fp8 GEMMs read and QLoRA quantises.
  std::int64_t linear_parameters() const { return hidden * (qkv_width() + hidden + mlp_up_width() + ffn); }
  bool moe() const { return experts > 1; }
  std::int64_t expert_width() const { return expert_ffn > 0 ? expert_ffn : ffn; }
  std::int64_t expert_up_width() const { return gated_mlp ? 2 * expert_width() : expert_width(); }

  std::int64_t norm_parameters() const;      // one LayerNorm / RMSNorm
  std::int64_t position_parameters() const;  // learned table, or 0 with RoPE
  std::int64_t token_type_parameters() const { return token_types * hidden; }
  std::int64_t embedding_norm_parameters() const;  // post-LN's norm after the embeddings
  // Token, position and token-type tables, and the embedding norm.
  std::int64_t embedding_parameters() const;
  std::int64_t layer_parameters() const;      // one transformer block
  std::int64_t dense_mlp_parameters() const;  // the MLP of a dense block
  std::int64_t router_parameters() const;     // hidden x experts (0 when dense)
  std::int64_t expert_parameters() const;     // one expert's MLP (0 when dense)
  // Of one block, the parameters outside its experts (they stay whole under
  // expert parallelism): norms, attention, the router or the dense MLP.
  std::int64_t layer_dense_parameters() const;
  std::int64_t final_norm_parameters() const;  // pre-LN's norm after the last block
  // The task head's weights, the pooler's among them when the head uses it;
  // a decoder tied to the token embedding counts nothing.
  std::int64_t head_parameters() const;
  // Of those, the ones tensor parallelism splits by vocabulary row (an untied
  // decoder, the MLM decoder's bias).
  std::int64_t head_vocab_parameters() const;
  bool head_uses_pooler() const;
  // The head's decoder reads the token embedding (a tied causal or masked LM).
  bool head_ties_embedding() const;
  // Logit rows per sequence and logits per row the loss reads.
  std::int64_t head_rows_per_sequence() const;
  std::int64_t head_columns() const;
  double head_logits_per_sequence() const {
    return static_cast<double>(head_rows_per_sequence()) * static_cast<double>(head_columns());
  }
  // Exact count, as sum(p.numel() for p in model.parameters()).
  std::int64_t parameter_count() const;
  // Parameters one token passes through: all but the experts it is not
  // routed to (= parameter_count() for a dense model).
  std::int64_t active_parameter_count() const;
  // Every expert of every block (0 when dense).
  std::int64_t all_expert_parameters() const { return layers * experts_in_block() * expert_parameters(); }
  std::int64_t experts_in_block() const { return moe() ? experts : 0; }
};

}  // namespace simctl
