// An encoder's task heads as one rank runs them (transformer_spec.hpp,
// HeadKind). The workload runs them without tensor parallelism, so every
// GEMM here is whole; their layouts are HF transformers' BertForPreTraining,
// BertForSequenceClassification and BertForQuestionAnswering.
#include "workloads/parameter_layout.hpp"
#include "workloads/pass_geometry.hpp"

namespace simctl {
namespace task_head_detail {

constexpr double kTanhFlops = 4.0;

// Y[rows, n] = X[rows, k] W[k, n], and its two backward GEMMs.
struct HeadLinear {
  std::string name;
  std::int64_t rows = 0, n = 0, k = 0;
};

void linear_forward(const PassGeometry& g, const HeadLinear& l, OpList& out) {
  const int out_bytes = bytes_per_element(g.p.dtype);
  out.compute(l.name, OpPhase::forward, gemm_work(l.rows, l.n, l.k, g.p.dtype, out_bytes));
}

void linear_backward(const PassGeometry& g, const HeadLinear& l, OpList& out) {
  out.compute(l.name + ".dgrad", OpPhase::backward,
              gemm_work(l.rows, l.k, l.n, g.p.dtype, bytes_per_element(g.p.dtype)));
  if (!head_trains(g.p)) return;
  out.compute(l.name + ".wgrad", OpPhase::backward,
              gemm_work(l.k, l.n, l.rows, g.p.dtype, bytes_per_element(g.p.grad_dtype)));
}

ComputeWork stream(const PassGeometry& g, ComputeKind kind, double elements, double flops, double tensors) {
  return streaming_work(kind, g.p.dtype, elements, flops, tensors);
}

std::int64_t hidden(const PassGeometry& g) { return g.p.model.hidden; }
std::int64_t sequences(const PassGeometry& g) { return g.p.micro_batch; }
double logit_elements(const PassGeometry& g) {
  return static_cast<double>(g.p.micro_batch) * g.p.model.head_logits_per_sequence();
}

// The pooler (or RoBERTa's head dense): tanh(W x) on each sequence's first token.
HeadLinear pooler(const PassGeometry& g) { return {"pooler", sequences(g), hidden(g), hidden(g)}; }

void pooler_forward(const PassGeometry& g, OpList& out) {
  linear_forward(g, pooler(g), out);
  const double elements = static_cast<double>(sequences(g) * hidden(g));
  out.compute("pooler.tanh", OpPhase::forward, stream(g, ComputeKind::elementwise, elements, kTanhFlops, 2.0));
}

void pooler_backward(const PassGeometry& g, OpList& out) {
  const double elements = static_cast<double>(sequences(g) * hidden(g));
  out.compute("pooler.tanh.bwd", OpPhase::backward, stream(g, ComputeKind::elementwise, elements, 2.0, 3.0));
  linear_backward(g, pooler(g), out);
}

// Rows the MLM head works on: the predicted positions of every sequence.
std::int64_t predicted_rows(const PassGeometry& g) { return sequences(g) * g.p.model.head_rows_per_sequence(); }
bool gathers_predicted(const PassGeometry& g) { return g.p.model.head_rows_per_sequence() < g.p.model.seq_len; }

HeadLinear mlm_transform(const PassGeometry& g) { return {"mlm.transform", predicted_rows(g), hidden(g), hidden(g)}; }
HeadLinear mlm_decoder(const PassGeometry& g) { return {"mlm.decoder", predicted_rows(g), g.p.model.vocab, hidden(g)}; }
HeadLinear next_sentence(const PassGeometry& g) { return {"nsp", sequences(g), 2, hidden(g)}; }

void masked_lm_forward(const PassGeometry& g, OpList& out) {
  const double rows = static_cast<double>(predicted_rows(g) * hidden(g));
  const OpPhase fw = OpPhase::forward;
  // NVIDIA's BERT index_selects the masked positions before the head.
  if (gathers_predicted(g)) out.compute("mlm.gather", fw, stream(g, ComputeKind::elementwise, rows, 0.0, 2.0));
  linear_forward(g, mlm_transform(g), out);
  out.compute("mlm.gelu", fw, stream(g, ComputeKind::elementwise, rows, kGeluForwardFlops, 2.0));
  out.compute("mlm.ln", fw, stream(g, ComputeKind::norm, rows, kLayerNormForwardFlops, 2.0));
  linear_forward(g, mlm_decoder(g), out);
  append_loss_forward(g, logit_elements(g), out);
  if (!g.p.model.head_uses_pooler()) return;
  pooler_forward(g, out);
  linear_forward(g, next_sentence(g), out);
}

void masked_lm_backward(const PassGeometry& g, OpList& out) {
  const OpPhase bw = OpPhase::backward;
  if (g.p.model.head_uses_pooler()) {
    linear_backward(g, next_sentence(g), out);
    pooler_backward(g, out);
  }
  append_loss_backward(g, logit_elements(g), out);
  linear_backward(g, mlm_decoder(g), out);
  const double rows = static_cast<double>(predicted_rows(g) * hidden(g));
  out.compute("mlm.ln.bwd", bw, stream(g, ComputeKind::norm, rows, kLayerNormBackwardFlops, 3.0));
  out.compute("mlm.gelu.bwd", bw, stream(g, ComputeKind::elementwise, rows, kGeluBackwardFlops, 3.0));
  linear_backward(g, mlm_transform(g), out);
  // index_select's backward: a zeroed gradient of every position, the
  // predicted rows added in.
  if (gathers_predicted(g)) {
    out.compute("mlm.gather.bwd", bw, stream(g, ComputeKind::elementwise, g.hidden_elements(), 0.0, 1.0));
  }
}

HeadLinear classifier(const PassGeometry& g) { return {"classifier", sequences(g), g.p.model.head.labels, hidden(g)}; }

void classification_forward(const PassGeometry& g, OpList& out) {
  pooler_forward(g, out);
  linear_forward(g, classifier(g), out);
  append_loss_forward(g, logit_elements(g), out);
}

void classification_backward(const PassGeometry& g, OpList& out) {
  append_loss_backward(g, logit_elements(g), out);
  linear_backward(g, classifier(g), out);
  pooler_backward(g, out);
  // Only the first token fed the head: the rest of the gradient is zeros.
  out.compute("pooler.input.bwd", OpPhase::backward,
              stream(g, ComputeKind::elementwise, g.hidden_elements(), 0.0, 1.0));
}

HeadLinear span_logits(const PassGeometry& g) { return {"qa_outputs", g.token_rows(), 2, hidden(g)}; }

}  // namespace task_head_detail

using namespace task_head_detail;

void append_task_head_forward(const PassGeometry& g, OpList& out) {
  switch (g.p.model.head.kind) {
    case HeadKind::masked_lm: return masked_lm_forward(g, out);
    case HeadKind::sequence_classification: return classification_forward(g, out);
    case HeadKind::question_answering:
      linear_forward(g, span_logits(g), out);
      return append_loss_forward(g, logit_elements(g), out);
    case HeadKind::causal_lm: return;
  }
}

void append_task_head_backward(const PassGeometry& g, OpList& out) {
  const std::size_t first = out.size();
  switch (g.p.model.head.kind) {
    case HeadKind::masked_lm: masked_lm_backward(g, out); break;
    case HeadKind::sequence_classification: classification_backward(g, out); break;
    case HeadKind::question_answering:
      append_loss_backward(g, logit_elements(g), out);
      linear_backward(g, span_logits(g), out);
      break;
    case HeadKind::causal_lm: return;
  }
  // The head's own weights are complete once its backward has run (a tied
  // decoder's gradient completes with the embedding's).
  if (head_trains(g.p) && out.size() > first) out.set_grads(out.size() - 1, head_tensor_indices(g.p.model));
}

}  // namespace simctl
