// Encoders (BERT, RoBERTa): their parameters as HF transformers counts them,
// attention both ways, post-LN, the task heads' ops and FLOPs, and the
// workload fields that choose a head.
#include <algorithm>
#include <catch2/catch.hpp>
#include <numeric>

#include "sim/config/config_error.hpp"
#include "tests/workloads/op_named.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/parameter_layout.hpp"
#include "workloads/transformer_ops.hpp"
#include "workloads/workload_config.hpp"

using namespace simctl;

namespace encoder_test_detail {

TransformerSpec bert_large(HeadKind head) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const TransformerSpec* found = catalogue.find("bert-large-uncased");
  REQUIRE(found != nullptr);
  TransformerSpec m = *found;
  m.head.kind = head;
  return m;
}

std::int64_t tensor_sum(const TransformerSpec& m) {
  const auto tensors = parameter_tensors(m);
  return std::accumulate(tensors.begin(), tensors.end(), std::int64_t{0},
                         [](std::int64_t sum, const ParameterTensor& t) { return sum + t.elements; });
}

using testing::op_named;

bool has_op(const std::vector<ModelOp>& ops, const std::string& name) {
  return std::any_of(ops.begin(), ops.end(), [&](const ModelOp& op) { return op.name == name; });
}

double total_flops(const std::vector<ModelOp>& ops, const std::string& prefix) {
  double sum = 0.0;
  for (const auto& op : ops) {
    if (op.name.rfind(prefix, 0) == 0) sum += op.work.flops;
  }
  return sum;
}

PassShape pass_of(const TransformerSpec& m, std::int64_t micro_batch) {
  return whole_model_shape(m, micro_batch, DType::fp16, DType::fp16);
}

std::string parse_error(const std::string& yaml) {
  try {
    parse_workload(ConfigNode::load_string(yaml, "w.yaml").child("workload"));
  } catch (const ConfigError& e) {
    return e.what();
  }
  FAIL("accepted: " << yaml);
  return {};
}

WorkloadSpec parse(const std::string& yaml) {
  return parse_workload(ConfigNode::load_string(yaml, "w.yaml").child("workload"));
}

}  // namespace encoder_test_detail

using namespace encoder_test_detail;

TEST_CASE("BERT-large has HF transformers' parameter counts under each head", "[workloads][encoder]") {
  // By hand, h = 1024, V = 30522, 512 positions, 2 token types, 24 layers:
  //   embeddings: 30522*1024 + 512*1024 + 2*1024 + LayerNorm 2048 = 31,782,912
  //   a block: 2 LayerNorms 4,096, Q/K/V 3,148,800, output 1,049,600,
  //            intermediate 4,198,400, output 4,195,328     = 12,596,224
  //   pooler 1024*1024 + 1024                              =  1,049,600
  // BertModel with its pooler: 31,782,912 + 24 * 12,596,224 + 1,049,600
  // = 335,141,888. No final LayerNorm (post-LN).
  const auto qa = bert_large(HeadKind::question_answering);
  CHECK(qa.embedding_parameters() == 31'782'912);
  CHECK(qa.layer_parameters() == 12'596'224);
  CHECK(qa.final_norm_parameters() == 0);
  // BertForQuestionAnswering: no pooler, qa_outputs 1024*2 + 2.
  CHECK(qa.parameter_count() == 335'141'888 - 1'049'600 + 2'050);
  // BertForPreTraining: the pooler, the MLM transform (1,049,600 + LayerNorm
  // 2,048), the decoder's bias 30,522 (its weight is the token embedding)
  // and the NSP classifier 2,050.
  const auto mlm = bert_large(HeadKind::masked_lm);
  CHECK(mlm.parameter_count() == 335'141'888 + 1'049'600 + 2'048 + 30'522 + 2'050);
  // BertForSequenceClassification (2 labels): the pooler and 1024*2 + 2.
  const auto cls = bert_large(HeadKind::sequence_classification);
  CHECK(cls.parameter_count() == 335'141'888 + 2'050);
  for (const auto& m : {qa, mlm, cls}) CHECK(tensor_sum(m) == m.parameter_count());
}

TEST_CASE("an encoder's tensors sit where BertForPreTraining lists them", "[workloads][encoder]") {
  const auto m = bert_large(HeadKind::masked_lm);
  const auto tensors = parameter_tensors(m);
  CHECK(tensors[2].name == "wtt.weight");
  CHECK(tensors[embedding_norm_indices(m).front()].name == "emb_ln.weight");
  CHECK(final_norm_indices(m).empty());
  const auto head = head_tensor_indices(m);
  CHECK(tensors[head.front()].name == "pooler.dense.weight");
  CHECK(tensors[head.back()].name == "cls.seq_relationship.bias");
  CHECK(head.back() + 1 == tensors.size());
  CHECK_THROWS(lm_head_index(m));
}

TEST_CASE("bidirectional attention computes every tile: twice a causal kernel's FLOPs", "[workloads][encoder]") {
  auto encoder = bert_large(HeadKind::question_answering);
  auto decoder = encoder;
  decoder.causal = true;
  decoder.head.kind = HeadKind::causal_lm;
  PassShape both_ways = pass_of(encoder, 4), causal = pass_of(decoder, 4);
  both_ways.attention = causal.attention = AttentionKernel::flash2;
  const auto encoder_ops = forward_ops(both_ways), decoder_ops = forward_ops(causal);
  const auto& full = op_named(encoder_ops, "layer0.attention");
  CHECK(full.work.flops == Approx(2.0 * op_named(decoder_ops, "layer0.attention").work.flops));
  CHECK_FALSE(full.work.causal);
}

TEST_CASE("post-LN normalises the embeddings and has no final norm", "[workloads][encoder]") {
  const auto m = bert_large(HeadKind::question_answering);
  const auto fwd = forward_ops(pass_of(m, 2));
  const auto bwd = backward_ops(pass_of(m, 2));
  CHECK(has_op(fwd, "embedding.ln"));
  CHECK_FALSE(has_op(fwd, "final_ln"));
  CHECK(op_named(bwd, "embedding.ln.bwd").grads_ready == embedding_norm_indices(m));
  auto pre = m;
  pre.norm_placement = NormPlacement::pre;
  CHECK_FALSE(has_op(forward_ops(pass_of(pre, 2)), "embedding.ln"));
  CHECK(has_op(forward_ops(pass_of(pre, 2)), "final_ln"));
}

TEST_CASE("a task head's GEMMs are its own, not a vocabulary LM head's", "[workloads][encoder]") {
  const std::int64_t b = 8, s = 512, h = 1024;
  const auto qa = bert_large(HeadKind::question_answering);
  const auto fwd = forward_ops(pass_of(qa, b));
  CHECK_FALSE(has_op(fwd, "lm_head"));
  CHECK(op_named(fwd, "qa_outputs").work.flops == Approx(2.0 * b * s * 2 * h));
  // The backward completes every head tensor at its last op.
  const auto bwd = backward_ops(pass_of(qa, b));
  CHECK(op_named(bwd, "qa_outputs.wgrad").grads_ready == head_tensor_indices(qa));

  // NVIDIA's MLM head runs on the masked positions only (80 of 512).
  auto mlm = bert_large(HeadKind::masked_lm);
  const auto every_position = total_flops(forward_ops(pass_of(mlm, b)), "mlm.decoder");
  mlm.head.predicted_fraction = 80.0 / 512.0;
  const auto masked_only = forward_ops(pass_of(mlm, b));
  CHECK(total_flops(masked_only, "mlm.decoder") == Approx(every_position * 80.0 / 512.0));
  CHECK(total_flops(masked_only, "mlm.decoder") == Approx(2.0 * b * 80 * 30522 * h));
  CHECK(has_op(masked_only, "mlm.gather"));
  CHECK(has_op(masked_only, "pooler"));  // NSP rides on the pooler

  const auto cls = bert_large(HeadKind::sequence_classification);
  const auto cls_ops = forward_ops(pass_of(cls, b));
  CHECK(op_named(cls_ops, "classifier").work.flops == Approx(2.0 * b * 2 * h));
}

TEST_CASE("model FLOPs count the task head's GEMMs in place of the LM head", "[workloads][encoder]") {
  const double s = 512, h = 1024, layers = 24;
  const double blocks = layers * (2.0 * s * h * (4.0 * h + 2.0 * 4.0 * h) + 4.0 * s * s * h);
  CHECK(forward_model_flops_per_sequence(bert_large(HeadKind::question_answering)) ==
        Approx(blocks + 2.0 * h * 2.0 * s));
  CHECK(forward_model_flops_per_sequence(bert_large(HeadKind::sequence_classification)) ==
        Approx(blocks + 2.0 * h * 2.0 + 2.0 * h * h));
}

TEST_CASE("workload.head, labels, masked_fraction and seq_len reach the model", "[workloads][encoder]") {
  const auto qa =
      parse("workload: {model: bert-large-uncased, head: question_answering, seq_len: 384, micro_batch: 4}");
  CHECK(qa.model.head.kind == HeadKind::question_answering);
  CHECK(qa.model.seq_len == 384);
  CHECK(qa.model.position_parameters() == 512 * 1024);  // the table keeps its rows
  CHECK(parse("workload: {model: bert-base-uncased, micro_batch: 4}").model.head.kind == HeadKind::masked_lm);
  const auto cls = parse("workload: {model: roberta-large, head: sequence_classification, labels: 3, micro_batch: 4}");
  CHECK(cls.model.head.labels == 3);
  CHECK_FALSE(cls.model.head_uses_pooler());  // RoBERTa's head has its own dense layer
  CHECK(parse("workload: {model: bert-large-uncased, masked_fraction: 0.15625, micro_batch: 4}")
            .model.head_rows_per_sequence() == 80);
  CHECK(parse("workload: {model: gpt2-small, precision: tf32, micro_batch: 1}").precision == DType::tf32);
}

TEST_CASE("an encoder's bad fields are refused with the field and what is valid", "[workloads][encoder]") {
  CHECK_THAT(parse_error("workload: {model: bert-large-uncased, head: causal_lm, micro_batch: 4}"),
             Catch::Contains("workload.head") && Catch::Contains("cannot be trained as a causal LM"));
  CHECK_THAT(parse_error("workload: {model: gpt2-small, head: masked_lm, micro_batch: 4}"),
             Catch::Contains("needs an encoder"));
  CHECK_THAT(parse_error("workload: {model: bert-large-uncased, head: question_answering, labels: 3, micro_batch: 4}"),
             Catch::Contains("workload.labels") && Catch::Contains("sequence_classification only"));
  CHECK_THAT(parse_error("workload: {model: bert-large-uncased, masked_fraction: 1.5, micro_batch: 4}"),
             Catch::Contains("workload.masked_fraction") && Catch::Contains("(0, 1]"));
  CHECK_THAT(parse_error("workload: {model: bert-large-uncased, seq_len: 1024, micro_batch: 4}"),
             Catch::Contains("workload.seq_len") && Catch::Contains("512"));
  CHECK_THAT(parse_error("workload: {model: bert-large-uncased, micro_batch: 4, parallel: {tensor: 2}}"),
             Catch::Contains("workload.parallel.tensor") && Catch::Contains("without tensor parallelism"));
  CHECK_THAT(parse_error("workload: {model: bert-large-uncased, micro_batch: 4, parallel: {context: 2}}"),
             Catch::Contains("workload.parallel.context") && Catch::Contains("causal attention"));
  CHECK_THAT(parse_error("workload: {model: mlp-33-512-10, head: masked_lm, micro_batch: 4}"),
             Catch::Contains("transformer models only"));
  CHECK_THAT(parse_error("workload: {task: inference, model: bert-large-uncased, prompt_tokens: 8, output_tokens: 8}"),
             Catch::Contains("encoder") && Catch::Contains("decoder"));
  CHECK_THAT(parse_error("workload: {model: {layers: 2, hidden: 64, heads: 4, vocab: 100, seq_len: 16, "
                         "attention_mask: sideways}, micro_batch: 1}"),
             Catch::Contains("attention_mask") && Catch::Contains("bidirectional"));
}
