#include "workloads/transformer_spec.hpp"

#include <catch2/catch.hpp>
#include <numeric>

#include "workloads/model_catalogue.hpp"
#include "workloads/model_flops.hpp"
#include "workloads/parameter_layout.hpp"

using namespace simctl;

namespace {
TransformerSpec catalogue_model(const std::string& id) {
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
  const auto m = catalogue_model("gpt2-small");
  CHECK(m.layer_parameters() == 7'087'872);
  CHECK(m.parameter_count() == 124'439'808);
}

TEST_CASE("catalogue models have their advertised sizes", "[workloads]") {
  CHECK(catalogue_model("gpt-1.3b").parameter_count() == Approx(1.3e9).epsilon(0.02));
  CHECK(catalogue_model("gpt-2.7b").parameter_count() == Approx(2.7e9).epsilon(0.03));
  CHECK(catalogue_model("gpt-6.7b").parameter_count() == Approx(6.7e9).epsilon(0.03));
  CHECK(catalogue_model("gpt-1.3b").ffn == 4 * 2048);
  CHECK_FALSE(catalogue_model("gpt-1.3b").source.empty());
}

TEST_CASE("the parameter tensor list adds up to the parameter count", "[workloads]") {
  const auto m = catalogue_model("gpt-1.3b");
  const auto tensors = parameter_tensors(m);
  const std::int64_t sum = std::accumulate(tensors.begin(), tensors.end(), std::int64_t{0},
                                           [](std::int64_t a, const ParameterTensor& t) { return a + t.elements; });
  CHECK(sum == m.parameter_count());
  CHECK(tensors.size() == 2 + 12 * 24 + 2);
  CHECK(tensors[block_tensor_index(3, BlockTensor::qkv_weight)].name == "h.3.attn.c_attn.weight");
  CHECK(tensors[final_norm_bias_index(m)].name == "ln_f.bias");
}

TEST_CASE("model FLOPs follow Megatron's closed formula", "[workloads]") {
  const auto m = catalogue_model("gpt-1.3b");
  const double B = 64, s = 2048, L = 24, h = 2048, V = 50257;
  const double megatron = 72 * B * s * L * h * h * (1 + s / (6 * h) + V / (12 * L * h));
  CHECK(training_model_flops(m, B) == Approx(megatron).epsilon(1e-12));
}
