#include "workloads/lstm_ops.hpp"

#include <string>

#include "workloads/op_costs.hpp"

namespace simctl {
namespace {

// The fused gate kernel: per gate element a pre-activation sum of the two
// projections and a sigmoid or tanh (~6 FLOPs), plus the cell update
// c = f*c + i*g and h = o*tanh(c) spread over the 4h elements.
constexpr double kGateForwardFlops = 8.0;
constexpr double kGateBackwardFlops = 10.0;
// Traffic per gate element, as a multiple of the 4h-wide gate tensor: forward
// reads both projections (2 x 4h) and c_{t-1} (h), writes the activated gates
// (4h), c_t and h_t (2h): 15h / 4h. Backward reads the saved gates (4h),
// c_{t-1}, c_t, dh_t and dc_{t+1} (4h), writes dgates (4h) and dc_t (h): 13h / 4h.
constexpr double kGateForwardTensors = 15.0 / 4.0;
constexpr double kGateBackwardTensors = 13.0 / 4.0;
constexpr double kTokenIndexBytes = 8.0;  // int64 token ids

struct LstmCtx {
  const LstmPass& p;
  const LstmSpec& m() const { return p.model; }
  std::int64_t tokens() const { return p.micro_batch * p.model.seq_len; }
  double bpe() const { return bytes_per_element(p.dtype); }
  int ibpe() const { return static_cast<int>(bytes_per_element(p.dtype)); }
  int gbpe() const { return static_cast<int>(bytes_per_element(p.grad_dtype)); }
  ComputeWork scaled(ComputeWork w) const { return with_time_factor(w, p.kernel_time_factor); }
  ComputeWork gemm(std::int64_t m, std::int64_t n, std::int64_t k, int c_bpe) const {
    return scaled(gemm_work(m, n, k, p.dtype, c_bpe));
  }
  ComputeWork stream(ComputeKind kind, double elements, double flops, double tensors) const {
    return scaled(streaming_work(kind, p.dtype, elements, flops, tensors));
  }
};

// Where each layer's tensors sit in lstm_parameter_tensors.
struct TensorIndex {
  const LstmSpec& m;
  std::size_t per_layer() const { return m.bias ? 4 : 2; }
  std::size_t encoder() const { return 0; }
  std::size_t w_ih(std::int64_t l) const { return 1 + static_cast<std::size_t>(l) * per_layer(); }
  std::size_t w_hh(std::int64_t l) const { return w_ih(l) + 1; }
  std::size_t b_ih(std::int64_t l) const { return w_ih(l) + 2; }
  std::size_t b_hh(std::int64_t l) const { return w_ih(l) + 3; }
  std::size_t decoder_weight() const { return m.tied_embeddings ? encoder() : w_ih(m.layers); }
  std::size_t decoder_bias() const { return w_ih(m.layers) + (m.tied_embeddings ? 0 : 1); }
};

std::string lstm_layer_name(std::int64_t l) { return "rnn.l" + std::to_string(l); }
std::string step_name(std::int64_t l, std::int64_t t) { return lstm_layer_name(l) + ".t" + std::to_string(t); }

ComputeWork embedding_forward(const LstmCtx& c) {
  ComputeWork w = c.stream(ComputeKind::embedding, static_cast<double>(c.tokens() * c.m().embedding), 0.0, 2.0);
  w.memory_bytes += static_cast<double>(c.tokens()) * kTokenIndexBytes;
  return w;
}

// Dense gradient of the table: zero it, then scatter-add each token's row.
ComputeWork embedding_backward(const LstmCtx& c) {
  const double rows = static_cast<double>(c.tokens() * c.m().embedding);
  ComputeWork w = c.stream(ComputeKind::embedding, rows, 1.0, 1.0);
  w.memory_bytes += static_cast<double>(c.m().vocab * c.m().embedding) * c.gbpe() +
                    static_cast<double>(c.tokens()) * kTokenIndexBytes;
  return w;
}

double gate_elements(const LstmCtx& c) { return static_cast<double>(c.p.micro_batch * c.m().gates()); }
double logits(const LstmCtx& c) { return static_cast<double>(c.tokens() * c.m().vocab); }

void add_layer_forward(const LstmCtx& c, std::int64_t l, std::vector<ModelOp>& ops) {
  const LstmSpec& m = c.m();
  ops.push_back({lstm_layer_name(l) + ".input_proj",
                 OpPhase::forward,
                 c.gemm(c.tokens(), m.gates(), m.input_width(l), c.ibpe()),
                 {},
                 {}});
  for (std::int64_t t = 0; t < m.seq_len; ++t) {
    const std::string at = step_name(l, t);
    ops.push_back(
        {at + ".recurrent", OpPhase::forward, c.gemm(c.p.micro_batch, m.gates(), m.hidden, c.ibpe()), {}, {}});
    ops.push_back({at + ".gates",
                   OpPhase::forward,
                   c.stream(ComputeKind::elementwise, gate_elements(c), kGateForwardFlops, kGateForwardTensors),
                   {},
                   {}});
  }
}

void add_layer_backward(const LstmCtx& c, std::int64_t l, std::vector<ModelOp>& ops) {
  const LstmSpec& m = c.m();
  const TensorIndex idx{m};
  const OpPhase bw = OpPhase::backward;
  for (std::int64_t t = m.seq_len; t-- > 0;) {
    const std::string at = step_name(l, t);
    ops.push_back({at + ".gates.bwd",
                   bw,
                   c.stream(ComputeKind::elementwise, gate_elements(c), kGateBackwardFlops, kGateBackwardTensors),
                   {},
                   {}});
    // dh_{t-1} = dgates_t W_hh; the first step's initial state is detached
    // (word_language_model repackages the hidden state), so it needs none.
    if (t > 0) {
      ops.push_back({at + ".recurrent.dgrad", bw, c.gemm(c.p.micro_batch, m.hidden, m.gates(), c.ibpe()), {}, {}});
    }
  }
  const std::string at = lstm_layer_name(l);
  // cuDNN's backward-weights pass: one GEMM per matrix over all steps.
  ops.push_back({at + ".wgrad_hh", bw, c.gemm(m.gates(), m.hidden, c.tokens(), c.gbpe()), {idx.w_hh(l)}, {}});
  ops.push_back({at + ".wgrad_ih", bw, c.gemm(m.gates(), m.input_width(l), c.tokens(), c.gbpe()), {idx.w_ih(l)}, {}});
  if (m.bias) {  // b_ih and b_hh get the same column sum of dgates
    ops.push_back({at + ".bias.grad",
                   bw,
                   c.stream(ComputeKind::elementwise, static_cast<double>(c.tokens() * m.gates()), 1.0, 1.0),
                   {idx.b_ih(l), idx.b_hh(l)},
                   {}});
  }
  ops.push_back({at + ".dgrad", bw, c.gemm(c.tokens(), m.input_width(l), m.gates(), c.ibpe()), {}, {}});
}

}  // namespace

std::vector<ModelOp> lstm_forward_ops(const LstmPass& p) {
  const LstmCtx c{p};
  std::vector<ModelOp> ops;
  ops.push_back({"encoder", OpPhase::forward, embedding_forward(c), {}, {}});
  for (std::int64_t l = 0; l < p.model.layers; ++l) add_layer_forward(c, l, ops);
  // The decoder's bias rides in the GEMM epilogue.
  ops.push_back({"decoder", OpPhase::forward, c.gemm(c.tokens(), p.model.vocab, p.model.hidden, c.ibpe()), {}, {}});
  ComputeWork loss = c.stream(ComputeKind::softmax, logits(c), kLossForwardFlops, 2.0);
  ops.push_back({"cross_entropy", OpPhase::forward, loss, {}, {}});
  return ops;
}

std::vector<ModelOp> lstm_backward_ops(const LstmPass& p) {
  const LstmCtx c{p};
  const LstmSpec& m = p.model;
  const TensorIndex idx{m};
  const OpPhase bw = OpPhase::backward;
  std::vector<ModelOp> ops;
  ops.push_back({"cross_entropy.bwd", bw, c.stream(ComputeKind::softmax, logits(c), kLossBackwardFlops, 2.0), {}, {}});
  ops.push_back(
      {"decoder.bias.grad", bw, c.stream(ComputeKind::elementwise, logits(c), 1.0, 1.0), {idx.decoder_bias()}, {}});
  // A tied decoder's weight is the encoder's: its gradient completes there.
  std::vector<std::size_t> decoder_ready;
  if (!m.tied_embeddings) decoder_ready.push_back(idx.decoder_weight());
  ops.push_back({"decoder.wgrad", bw, c.gemm(m.vocab, m.hidden, c.tokens(), c.gbpe()), decoder_ready, {}});
  ops.push_back({"decoder.dgrad", bw, c.gemm(c.tokens(), m.hidden, m.vocab, c.ibpe()), {}, {}});
  for (std::int64_t l = m.layers; l-- > 0;) add_layer_backward(c, l, ops);
  ops.push_back({"encoder.bwd", bw, embedding_backward(c), {idx.encoder()}, {}});
  return ops;
}

std::vector<ParameterTensor> lstm_parameter_tensors(const LstmSpec& m) {
  std::vector<ParameterTensor> out;
  out.push_back({"encoder.weight", m.vocab * m.embedding});
  for (std::int64_t l = 0; l < m.layers; ++l) {
    const std::string i = std::to_string(l);
    out.push_back({"rnn.weight_ih_l" + i, m.gates() * m.input_width(l)});
    out.push_back({"rnn.weight_hh_l" + i, m.gates() * m.hidden});
    if (!m.bias) continue;
    out.push_back({"rnn.bias_ih_l" + i, m.gates()});
    out.push_back({"rnn.bias_hh_l" + i, m.gates()});
  }
  if (!m.tied_embeddings) out.push_back({"decoder.weight", m.hidden * m.vocab});
  out.push_back({"decoder.bias", m.vocab});
  return out;
}

double lstm_training_flops(const LstmSpec& m, double sequences) {
  double weights = static_cast<double>(m.hidden * m.vocab);
  for (std::int64_t l = 0; l < m.layers; ++l) {
    weights += static_cast<double>(m.gates() * (m.input_width(l) + m.hidden));
  }
  return 6.0 * weights * sequences * static_cast<double>(m.seq_len);
}

double lstm_saved_elements_per_sequence(const LstmSpec& m) {
  const double per_step = static_cast<double>(m.embedding + m.layers * (m.gates() + 2 * m.hidden) + m.vocab);
  return per_step * static_cast<double>(m.seq_len);
}

}  // namespace simctl
