// The MLP generator: exact parameter count, ops as GEMM + bias + activation,
// and the plans it accepts.
#include <catch2/catch.hpp>
#include <numeric>

#include "workloads/ddp_trace.hpp"
#include "workloads/mlp_ops.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/workload_config.hpp"

using namespace simctl;

namespace {

MlpSpec catalogue_mlp(const std::string& id) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const MlpSpec* found = catalogue.find_mlp(id);
  REQUIRE(found != nullptr);
  return *found;
}

std::vector<std::string> names(const std::vector<ModelOp>& ops) {
  std::vector<std::string> out;
  for (const auto& op : ops) out.push_back(op.name);
  return out;
}

WorkloadSpec parse_mlp(const std::string& text) {
  return parse_workload(ConfigNode::load_string(text, "w.yaml").child("workload"));
}

}  // namespace

TEST_CASE("mlp-33-512-10 has exactly 33*512+512 + 512*10+10 parameters", "[workloads][mlp]") {
  const MlpSpec m = catalogue_mlp("mlp-33-512-10");
  CHECK(m.widths == std::vector<std::int64_t>{33, 512, 10});
  CHECK(m.activation == Activation::relu);
  CHECK(m.parameter_count() == 33 * 512 + 512 + 512 * 10 + 10);
  CHECK(m.parameter_count() == 22'538);
  const auto tensors = mlp_parameter_tensors(m);
  REQUIRE(tensors.size() == 4);
  CHECK(tensors[0].name == "fc0.weight");
  CHECK(tensors[0].elements == 33 * 512);
  CHECK(tensors[3].elements == 10);
  CHECK_FALSE(m.source.empty());
}

TEST_CASE("MLP passes are GEMM, bias and activation per layer", "[workloads][mlp]") {
  const MlpPass pass{catalogue_mlp("mlp-33-512-10"), 256, DType::bf16, DType::bf16, 1.0};
  const auto fwd = mlp_forward_ops(pass);
  CHECK(names(fwd) == std::vector<std::string>{"fc0", "fc0.bias", "fc0.relu", "fc1", "fc1.bias", "cross_entropy"});
  CHECK(fwd[0].work.kind == ComputeKind::gemm);
  CHECK(fwd[0].work.m == 256);
  CHECK(fwd[0].work.n == 512);
  CHECK(fwd[0].work.k == 33);
  const auto bwd = mlp_backward_ops(pass);
  // The first layer's input needs no gradient, so it has no dgrad.
  CHECK(names(bwd) == std::vector<std::string>{"cross_entropy.bwd", "fc1.bias.grad", "fc1.wgrad", "fc1.dgrad",
                                               "fc0.relu.bwd", "fc0.bias.grad", "fc0.wgrad"});
  const double forward_gemm_flops = fwd[0].work.flops + fwd[3].work.flops;
  CHECK(forward_gemm_flops == Approx(2.0 * 256 * (33 * 512 + 512 * 10)));
  CHECK(mlp_training_flops(pass.model, 256) == Approx(3.0 * forward_gemm_flops));
}

TEST_CASE("an inline MLP parses, and runs data parallelism only", "[workloads][mlp]") {
  const auto spec = parse_mlp(
      "workload: {model: {kind: mlp, layers: [784, 256, 256, 10], activation: gelu}, parallel: {data: 2}, "
      "micro_batch: 64}\n");
  REQUIRE(spec.mlp.has_value());
  CHECK(parameter_count(spec) == 784 * 256 + 256 + 256 * 256 + 256 + 256 * 10 + 10);
  CHECK(spec.mlp->activation == Activation::gelu);
  const Trace trace = build_ddp_trace(spec, 2);
  CHECK(trace.totals.parameters == static_cast<double>(parameter_count(spec)));
  CHECK(trace.totals.samples == 64 * 2);
  CHECK(trace.totals.tokens == 0);  // an MLP's samples are not token sequences
  CHECK_THROWS_AS(parse_mlp("workload: {model: mlp-33-512-10, parallel: {data: 2, tensor: 2}, micro_batch: 1}\n"),
                  ConfigError);
  CHECK_THROWS_AS(parse_mlp("workload: {model: mlp-33-512-10, strategy: zero3, micro_batch: 1}\n"), ConfigError);
  CHECK_THROWS_AS(parse_mlp("workload: {model: {kind: mlp, layers: [33]}, micro_batch: 1}\n"), ConfigError);
  CHECK_THROWS_AS(parse_mlp("workload: {model: {kind: cnn, layers: [3, 4]}, micro_batch: 1}\n"), ConfigError);
}
