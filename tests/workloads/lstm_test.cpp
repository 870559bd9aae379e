// The LSTM language-model generator: parameter count against torch.nn's,
// the cuDNN-style op sequence (one input-projection GEMM per layer, a
// recurrent GEMM and a fused gate kernel per time step), FLOPs, memory and
// the plans it accepts.
#include <catch2/catch.hpp>

#include "tests/workloads/op_named.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/lstm_ops.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/workload_config.hpp"

using namespace simctl;

namespace {

LstmSpec catalogue_lstm(const std::string& id) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const LstmSpec* found = catalogue.find_lstm(id);
  REQUIRE(found != nullptr);
  return *found;
}

WorkloadSpec parse_lstm(const std::string& text) {
  return parse_workload(ConfigNode::load_string(text, "w.yaml").child("workload"));
}

std::size_t count_suffix(const std::vector<ModelOp>& ops, const std::string& suffix) {
  std::size_t n = 0;
  for (const auto& op : ops) {
    if (op.name.size() >= suffix.size() && op.name.compare(op.name.size() - suffix.size(), suffix.size(), suffix) == 0)
      ++n;
  }
  return n;
}

using testing::op_named;

}  // namespace

TEST_CASE("lstm-ptb-large has torch.nn's parameter count, two bias vectors per layer", "[workloads][lstm]") {
  const LstmSpec m = catalogue_lstm("lstm-ptb-large");
  CHECK(m.layers == 2);
  CHECK(m.hidden == 1500);
  // nn.LSTM: weight_ih 4h x in, weight_hh 4h x h, bias_ih and bias_hh 4h each.
  CHECK(m.layer_parameters(0) == 4 * 1500 * (1500 + 1500) + 8 * 1500);
  // Embedding + 2 layers + decoder weight and bias: 66,034,000 (the "66M" of
  // Zaremba et al.'s large model).
  CHECK(m.parameter_count() == 10'000 * 1500 + 2 * 18'012'000 + 1500 * 10'000 + 10'000);
  CHECK(m.parameter_count() == 66'034'000);
  const auto tensors = lstm_parameter_tensors(m);
  REQUIRE(tensors.size() == 1 + 2 * 4 + 2);
  CHECK(tensors[1].name == "rnn.weight_ih_l0");
  CHECK(tensors[4].name == "rnn.bias_hh_l0");
  CHECK(tensors.back().name == "decoder.bias");
  std::int64_t sum = 0;
  for (const auto& t : tensors) sum += t.elements;
  CHECK(sum == m.parameter_count());
  CHECK_FALSE(m.source.empty());
}

TEST_CASE("a tied decoder shares the embedding, bias: false drops both vectors", "[workloads][lstm]") {
  const auto tied = parse_lstm(
      "workload: {model: {kind: lstm, vocab: 33278, hidden: 650, layers: 2, seq_len: 35, tied_embeddings: true}, "
      "micro_batch: 20}\n");
  REQUIRE(tied.lstm.has_value());
  // PyTorch word_language_model --emsize 650 --nhid 650 --tied on WikiText-2.
  CHECK(parameter_count(tied) == 33278 * 650 + 2 * (4 * 650 * 1300 + 8 * 650) + 33278);
  CHECK(lstm_parameter_tensors(*tied.lstm).size() == 1 + 2 * 4 + 1);
  const auto no_bias = parse_lstm(
      "workload: {model: {kind: lstm, vocab: 100, hidden: 8, embedding: 4, layers: 1, seq_len: 3, bias: false}, "
      "micro_batch: 1}\n");
  CHECK(parameter_count(no_bias) == 100 * 4 + 4 * 8 * (4 + 8) + 8 * 100 + 100);
}

TEST_CASE("LSTM passes: one input projection per layer, a recurrent GEMM and a gate kernel per step",
          "[workloads][lstm]") {
  const LstmPass pass{catalogue_lstm("lstm-ptb-large"), 64, DType::fp16, DType::fp32, 1.0};
  const auto fwd = lstm_forward_ops(pass);
  // encoder, per layer 1 + 2 x 35, decoder, cross_entropy
  CHECK(fwd.size() == 1 + 2 * (1 + 2 * 35) + 2);
  CHECK(count_suffix(fwd, ".recurrent") == 2 * 35);
  CHECK(count_suffix(fwd, ".gates") == 2 * 35);
  const auto& proj = op_named(fwd, "rnn.l0.input_proj").work;
  CHECK(proj.kind == ComputeKind::gemm);
  CHECK(proj.m == 64 * 35);
  CHECK(proj.n == 4 * 1500);
  CHECK(proj.k == 1500);
  const auto& step = op_named(fwd, "rnn.l1.t7.recurrent").work;
  CHECK(step.m == 64);
  CHECK(step.n == 6000);
  CHECK(step.k == 1500);
  CHECK(op_named(fwd, "rnn.l1.t7.gates").work.kind == ComputeKind::elementwise);
  CHECK(op_named(fwd, "decoder").work.n == 10'000);

  const auto bwd = lstm_backward_ops(pass);
  CHECK(count_suffix(bwd, ".gates.bwd") == 2 * 35);
  CHECK(count_suffix(bwd, ".recurrent.dgrad") == 2 * 34);  // the detached initial state needs none
  const auto& dgrad = op_named(bwd, "rnn.l0.t5.recurrent.dgrad").work;
  CHECK(dgrad.m == 64);
  CHECK(dgrad.n == 1500);
  CHECK(dgrad.k == 6000);
  const auto& wgrad = op_named(bwd, "rnn.l0.wgrad_hh").work;
  CHECK(wgrad.k == 64 * 35);  // one GEMM over every step
  // Every parameter's gradient is produced exactly once.
  std::vector<int> produced(lstm_parameter_tensors(pass.model).size(), 0);
  for (const auto& op : bwd) {
    for (std::size_t t : op.grads_ready) ++produced[t];
  }
  for (int n : produced) CHECK(n == 1);

  double forward_gemm_flops = 0.0;
  for (const auto& op : fwd) {
    if (op.work.kind == ComputeKind::gemm) forward_gemm_flops += op.work.flops;
  }
  const double tokens = 64.0 * 35.0;
  const double gemm_weights = 2.0 * 4 * 1500 * 3000 + 1500.0 * 10'000;
  CHECK(forward_gemm_flops == Approx(2.0 * gemm_weights * tokens));
  CHECK(lstm_training_flops(pass.model, 64) == Approx(3.0 * forward_gemm_flops));
}

TEST_CASE("LSTM DDP traces count tokens and memory counts weights, Adam and per-step activations",
          "[workloads][lstm]") {
  const auto spec = parse_lstm(
      "workload: {model: lstm-ptb-large, parallel: {data: 2}, micro_batch: 64, precision: fp16, "
      "ddp: {grad_dtype: fp32}}\n");
  REQUIRE(spec.lstm.has_value());
  const Trace trace = build_ddp_trace(spec, 2);
  CHECK(trace.totals.tokens == 2 * 64 * 35);
  CHECK(trace.totals.samples == 2 * 64);
  CHECK(trace.totals.parameters == 66'034'000.0);
  const auto rows = estimate_memory(spec);
  REQUIRE(rows.size() == 1);
  double activations = 0.0, total = rows[0].total_bytes();
  for (const auto& item : rows[0].items) {
    if (item.name == "activations") activations = item.bytes;
  }
  // 35 steps x (embedding 1500 + 2 layers x (4h gates + c + h) + 10k logits) x 64 x 2 bytes.
  CHECK(activations == Approx(64.0 * 35 * (1500 + 2 * 9000 + 10'000) * 2));
  CHECK(total > 66'034'000.0 * 16);  // fp16 weights, fp32 master, grads and two Adam moments at least
  CHECK_THROWS_AS(parse_lstm("workload: {model: lstm-ptb-large, parallel: {tensor: 2}, micro_batch: 1}\n"),
                  ConfigError);
  CHECK_THROWS_AS(parse_lstm("workload: {model: {kind: lstm, vocab: 10, hidden: 8, embedding: 4, layers: 1, "
                             "seq_len: 3, tied_embeddings: true}, micro_batch: 1}\n"),
                  ConfigError);
  CHECK_THROWS_AS(parse_lstm("workload: {model: {kind: lstm, vocab: 10, hidden: 0, layers: 1, seq_len: 3}, "
                             "micro_batch: 1}\n"),
                  ConfigError);
}
