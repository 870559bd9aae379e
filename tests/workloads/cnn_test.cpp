// The CNN generator: catalogue models with torchvision's exact parameter
// counts, conv ops as implicit GEMMs, and the configs it rejects.
#include <catch2/catch.hpp>

#include "workloads/cnn_config.hpp"
#include "workloads/cnn_ops.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/model_catalogue.hpp"
#include "workloads/workload_config.hpp"

using namespace simctl;

namespace {

CnnSpec catalogue_cnn(const std::string& id) {
  const auto catalogue = ModelCatalogue::load_file(ModelCatalogue::default_path());
  const CnnSpec* found = catalogue.find_cnn(id);
  REQUIRE(found != nullptr);
  return *found;
}

const CnnLayer& layer(const CnnSpec& m, const std::string& name) {
  for (const auto& l : m.layers) {
    if (l.name == name) return l;
  }
  FAIL("no layer " << name);
  return m.layers.front();
}

WorkloadSpec parse_cnn(const std::string& text) {
  return parse_workload(ConfigNode::load_string(text, "w.yaml").child("workload"));
}

}  // namespace

TEST_CASE("resnet50 and vgg16 match torchvision's parameter counts", "[workloads][cnn]") {
  const CnnSpec resnet = catalogue_cnn("resnet50");
  CHECK(resnet.parameter_count() == 25'557'032);  // sum(p.numel()) of torchvision.models.resnet50()
  CHECK(resnet.classes() == 1000);
  CHECK(layer(resnet, "layer4.2.conv3").out == ImageShape{2048, 7, 7});
  CHECK(layer(resnet, "layer2.0.downsample.0").stride == 2);
  CHECK(layer(resnet, "fc").in == ImageShape{2048, 1, 1});
  CHECK_FALSE(resnet.source.empty());
  const CnnSpec vgg = catalogue_cnn("vgg16");
  CHECK(vgg.parameter_count() == 138'357'544);  // torchvision.models.vgg16()
  CHECK(vgg.layers[vgg.layers.size() - 5].in == ImageShape{512, 7, 7});
  std::int64_t tensor_elements = 0;
  for (const auto& t : cnn_parameter_tensors(resnet)) tensor_elements += t.elements;
  CHECK(tensor_elements == resnet.parameter_count());
  CHECK(cnn_parameter_tensors(resnet).size() == 161);  // len(list(resnet50().parameters()))
}

TEST_CASE("a conv is an implicit GEMM forward and two backward", "[workloads][cnn]") {
  const CnnPass pass{catalogue_cnn("resnet50"), 64, DType::fp16, DType::fp16, 1.0};
  const auto fwd = cnn_forward_ops(pass);
  const auto conv = std::find_if(fwd.begin(), fwd.end(), [](const ModelOp& op) { return op.name == "layer1.0.conv2"; });
  REQUIRE(conv != fwd.end());
  CHECK(conv->work.kind == ComputeKind::gemm);
  CHECK(conv->work.m == 64 * 56 * 56);
  CHECK(conv->work.n == 64);
  CHECK(conv->work.k == 64 * 3 * 3);
  // input + weights + output, not the 9x larger im2col matrix
  CHECK(conv->work.memory_bytes == Approx(2.0 * (64.0 * 64 * 56 * 56 * 2 + 64 * 64 * 9)));
  const auto bwd = cnn_backward_ops(pass);
  int conv2_gemms = 0;
  for (const auto& op : bwd) {
    if (op.name.rfind("layer1.0.conv2.", 0) == 0) {
      ++conv2_gemms;
      CHECK(op.work.flops == Approx(conv->work.flops));
    }
  }
  CHECK(conv2_gemms == 2);
  CHECK(bwd.back().name == "conv1.wgrad");  // the image needs no gradient
  // 4.1 GMACs per 224x224 image forward, the figure usually quoted.
  CHECK(cnn_training_flops(pass.model, 1.0) / 6.0 == Approx(4.09e9).epsilon(0.01));
}

TEST_CASE("a conv has a bias by default, as PyTorch's nn.Conv2d, and none with bias: false", "[workloads][cnn]") {
  const auto model = [](const std::string& conv) {
    return parse_cnn_spec(
        ConfigNode::load_string("{kind: cnn, input: [3, 8, 8], layers: [" + conv + ", {fc: 2}]}", "m.yaml"), "m");
  };
  const std::int64_t fc = 16 * 8 * 8 * 2 + 2;
  // 3x3 conv from 3 to 16 channels: 3 * 16 * 9 weights, plus 16 biases by default.
  CHECK(model("{conv: 16, kernel: 3, padding: 1}").parameter_count() == 3 * 16 * 9 + 16 + fc);
  CHECK(model("{conv: 16, kernel: 3, padding: 1, bias: true}").parameter_count() == 3 * 16 * 9 + 16 + fc);
  CHECK(model("{conv: 16, kernel: 3, padding: 1, bias: false}").parameter_count() == 3 * 16 * 9 + fc);
  CHECK(cnn_parameter_tensors(model("{conv: 16, kernel: 3, padding: 1}")).size() == 4);  // conv w, b; fc w, b
}

TEST_CASE("an inline CNN parses and builds a DDP trace", "[workloads][cnn]") {
  const auto spec = parse_cnn(
      "workload: {model: {kind: cnn, input: [3, 32, 32], layers: [{conv: 16, in: 3, kernel: 3, padding: 1, bias: "
      "false}, bn, "
      "relu, {max_pool: 2}, {bottleneck: 8, blocks: 2, stride: 2}, {avg_pool: global}, {fc: 10}]}, "
      "parallel: {data: 2}, micro_batch: 8, global_batch: 16, precision: fp16}\n");
  REQUIRE(spec.cnn.has_value());
  // conv 3*16*9, bn 32, block0: 16*8 + 16 + 8*8*9 + 16 + 8*32 + 64 + ds 16*32 + 64, block1: 32*8 + 16 + 576 +
  // 16 + 256 + 64, fc 32*10 + 10
  CHECK(parameter_count(spec) ==
        432 + 32 + (128 + 16 + 576 + 16 + 256 + 64 + 512 + 64) + (256 + 16 + 576 + 16 + 256 + 64) + 330);
  const Trace trace = build_ddp_trace(spec, 2);
  CHECK(trace.totals.parameters == static_cast<double>(parameter_count(spec)));
  CHECK(trace.totals.samples == 16);
  CHECK_THROWS_AS(parse_cnn("workload: {model: resnet50, parallel: {data: 2, tensor: 2}, micro_batch: 1}\n"),
                  ConfigError);
  CHECK_THROWS_AS(parse_cnn("workload: {model: {kind: cnn, input: [3, 8, 8], layers: [{conv: 4, in: 5}, "
                            "{fc: 2}]}, micro_batch: 1}\n"),
                  ConfigError);
  CHECK_THROWS_AS(parse_cnn("workload: {model: {kind: cnn, input: [3, 4, 4], layers: [{conv: 4, kernel: 7}, "
                            "{fc: 2}]}, micro_batch: 1}\n"),
                  ConfigError);
  CHECK_THROWS_AS(parse_cnn("workload: {model: {kind: cnn, input: [3, 4, 4], layers: [relu]}, micro_batch: 1}\n"),
                  ConfigError);
}
