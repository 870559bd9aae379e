#include "workloads/transformer_spec.hpp"

#include <catch2/catch.hpp>
#include <numeric>

#include "workloads/model_catalogue.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/parameter_layout.hpp"

using namespace simctl;

namespace {
TransformerSpec spec_catalogue_model(const std::string& id) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const TransformerSpec* found = catalogue.find(id);
  REQUIRE(found != nullptr);
  return *found;
}
}  // namespace

TEST_CASE("gpt2-small has the 124,439,808 parameters of HF gpt2", "[workloads]") {
  // By hand, h = 768, V = 50257, s = 1024, 12 layers, ffn = 3072:
  //   token embedding 50257*768          = 38,597,376
  //   position embedding 1024*768        =    786,432
  //   per layer: 2 LayerNorms 2*(2*768)  =      3,072
  //              QKV 768*2304 + 2304     =  1,771,776
  //              out 768*768 + 768       =    590,592
  //              fc  768*3072 + 3072     =  2,362,368
  //              proj 3072*768 + 768     =  2,360,064
  //              sum                     =  7,087,872, x12 = 85,054,464
  //   final LayerNorm 2*768              =      1,536
  //   LM head: tied to the token embedding, 0
  //   total                              = 124,439,808
  const auto m = spec_catalogue_model("gpt2-small");
  CHECK(m.layer_parameters() == 7'087'872);
  CHECK(m.parameter_count() == 124'439'808);
}

TEST_CASE("catalogue models have their advertised sizes", "[workloads]") {
  CHECK(spec_catalogue_model("gpt-1.3b").parameter_count() == Approx(1.3e9).epsilon(0.02));
  CHECK(spec_catalogue_model("gpt-2.7b").parameter_count() == Approx(2.7e9).epsilon(0.03));
  CHECK(spec_catalogue_model("gpt-6.7b").parameter_count() == Approx(6.7e9).epsilon(0.03));
  CHECK(spec_catalogue_model("gpt-1.3b").ffn == 4 * 2048);
  CHECK_FALSE(spec_catalogue_model("gpt-1.3b").source.empty());
}

TEST_CASE("the parameter tensor list adds up to the parameter count", "[workloads]") {
  const auto m = spec_catalogue_model("gpt-1.3b");
  const auto tensors = parameter_tensors(m);
  const std::int64_t sum = std::accumulate(tensors.begin(), tensors.end(), std::int64_t{0},
                                           [](std::int64_t a, const ParameterTensor& t) { return a + t.elements; });
  CHECK(sum == m.parameter_count());
  CHECK(tensors.size() == 2 + 12 * 24 + 2);
  CHECK(tensors[block_tensor_index(m, 3, BlockTensor::qkv_weight)].name == "h.3.attn.c_attn.weight");
  CHECK(tensors[final_norm_indices(m).back()].name == "ln_f.bias");
  CHECK_THROWS(lm_head_index(m));  // tied to the token embedding
}

TEST_CASE("Llama models match their published parameter counts", "[workloads]") {
  // By hand for llama3-8b (h 4096, 32 layers, 32 heads of 128, 8 KV heads,
  // ffn 14336, V 128256):
  //   token embedding 128256*4096              =   525,336,576
  //   per layer: 2 RMSNorms 2*4096             =         8,192
  //              Q and output 2*4096*4096      =    33,554,432
  //              K and V 2*4096*(8*128)        =     8,388,608
  //              gate, up, down 3*4096*14336   =   176,160,768
  //              sum                           =   218,112,000, x32 = 6,979,584,000
  //   final RMSNorm                            =         4,096
  //   LM head (untied) 128256*4096             =   525,336,576
  //   total                                    = 8,030,261,248
  const auto l3 = spec_catalogue_model("llama3-8b");
  CHECK(l3.layer_parameters() == 218'112'000);
  CHECK(l3.parameter_count() == 8'030'261'248);
  // Published figures (Meta's model cards and papers), within 0.5%.
  CHECK(spec_catalogue_model("llama2-7b").parameter_count() == Approx(6.74e9).epsilon(0.005));
  CHECK(spec_catalogue_model("llama2-70b").parameter_count() == Approx(68.98e9).epsilon(0.005));
  CHECK(spec_catalogue_model("llama3-8b").parameter_count() == Approx(8.03e9).epsilon(0.005));
  CHECK(spec_catalogue_model("llama3-70b").parameter_count() == Approx(70.55e9).epsilon(0.005));
  CHECK(spec_catalogue_model("llama3.1-405b").parameter_count() == Approx(405.9e9).epsilon(0.005));
}

TEST_CASE("a Llama's tensor list has no biases or position table and an untied head", "[workloads]") {
  const auto m = spec_catalogue_model("llama3-8b");
  const auto tensors = parameter_tensors(m);
  const std::int64_t sum = std::accumulate(tensors.begin(), tensors.end(), std::int64_t{0},
                                           [](std::int64_t a, const ParameterTensor& t) { return a + t.elements; });
  CHECK(sum == m.parameter_count());
  // token embedding; per block 2 norms, QKV, output, gate, up, down; final norm; head
  CHECK(tensors.size() == 1 + 7 * 32 + 1 + 1);
  CHECK(tensors[block_tensor_index(m, 0, BlockTensor::qkv_weight)].elements == 4096 * (4096 + 2 * 1024));
  CHECK(tensors[block_tensor_index(m, 31, BlockTensor::mlp_gate_weight)].elements == 4096 * 14336);
  CHECK(tensors[lm_head_index(m)].name == "lm_head.weight");
  CHECK_FALSE(has_block_tensor(m, BlockTensor::qkv_bias));
  CHECK_THROWS(position_embedding_index(m));
}

TEST_CASE("Llama model FLOPs are 6 N_matmul per token plus attention", "[workloads]") {
  const auto m = spec_catalogue_model("llama3-8b");
  const double s = 8192, L = 32, h = 4096;
  // Every parameter but the embedding lookup and the norms is a matrix product.
  const double matmul_params = static_cast<double>(m.parameter_count() - m.vocab * m.hidden) - (2 * L + 1) * h;
  const double expected = 6 * matmul_params * s + 3 * L * 4 * s * s * h;
  CHECK(training_model_flops(m, 1) == Approx(expected).epsilon(1e-12));
}

TEST_CASE("model FLOPs follow Megatron's closed formula", "[workloads]") {
  const auto m = spec_catalogue_model("gpt-1.3b");
  const double B = 64, s = 2048, L = 24, h = 2048, V = 50257;
  const double megatron = 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
  CHECK(training_model_flops(m, B) == Approx(megatron).epsilon(1e-12));
}
