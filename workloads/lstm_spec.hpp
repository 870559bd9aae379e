#pragma once
// A recurrent language model: a token embedding, a stack of LSTM layers run
// over seq_len time steps, and a linear decoder to vocabulary logits with a
// softmax cross-entropy, as PyTorch's word_language_model builds it
// (nn.Embedding -> nn.LSTM(num_layers) -> nn.Linear). Read from a
// `kind: lstm` mapping in workloads/models.yaml or an inline `model:`.
#include <cstdint>
#include <string>

#include "sim/config/config_node.hpp"

namespace simctl {

struct LstmSpec {
  std::string name;
  std::string source;
  std::int64_t vocab = 0;
  std::int64_t embedding = 0;  // the first layer's input width
  std::int64_t hidden = 0;     // every layer's state width
  std::int64_t layers = 0;
  std::int64_t seq_len = 0;      // time steps per sample (BPTT length)
  bool bias = true;              // PyTorch's two bias vectors (b_ih, b_hh) per layer
  bool tied_embeddings = false;  // the decoder reuses the embedding (needs embedding == hidden)

  std::int64_t gates() const { return 4 * hidden; }  // input, forget, cell, output
  std::int64_t input_width(std::int64_t layer) const { return layer == 0 ? embedding : hidden; }
  // 4h(in + h) weights plus 8h biases (b_ih and b_hh of 4h each), as
  // torch.nn.LSTM counts them.
  std::int64_t layer_parameters(std::int64_t layer) const;
  // Exact: embedding, every layer, and the decoder's weight (unless tied) and bias.
  std::int64_t parameter_count() const;
};

// True when a model mapping names `kind: lstm`.
bool is_lstm_node(const ConfigNode& node);
// Reads `{kind: lstm, vocab, hidden, layers, seq_len, embedding, bias,
// tied_embeddings, source}`.
LstmSpec parse_lstm_spec(const ConfigNode& node, const std::string& name);

}  // namespace simctl
