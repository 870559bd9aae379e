// CNNs through the compute model and the executor: a big conv is
// compute-bound while its BN and ReLU are memory-bound, and a whole ResNet-50
// DDP step on one RTX 4090 against Lambda's measured images/s.
#include <catch2/catch.hpp>

#include "models/devices/compute_model.hpp"
#include "plan_run.hpp"
#include "sim/report/breakdown.hpp"
#include "tests/workloads/op_named.hpp"
#include "workloads/cnn_config.hpp"
#include "workloads/cnn_ops.hpp"

using namespace simctl;

namespace {

using testing::op_named;

}  // namespace

TEST_CASE("a 3x3 256-channel conv is compute-bound on an H100, its BN and ReLU memory-bound", "[plans][cnn]") {
  const DeviceCatalogue devices = DeviceCatalogue::load();
  const GpuSpec* h100 = devices.find_gpu("h100-sxm");
  REQUIRE(h100 != nullptr);
  const CnnSpec wide = parse_cnn_spec(
      ConfigNode::load_string("{kind: cnn, input: [256, 56, 56], layers: [{conv: 256, kernel: 3, padding: 1, "
                              "name: conv}, bn, relu, {avg_pool: global}, {fc: 10}]}",
                              "m.yaml"),
      "wide");
  const CnnPass pass{wide, 64, DType::fp16, DType::fp16, 1.0};
  const auto fwd = cnn_forward_ops(pass);
  const auto bwd = cnn_backward_ops(pass);
  CHECK_FALSE(estimate_compute(*h100, op_named(fwd, "conv").work).memory_bound);
  CHECK_FALSE(estimate_compute(*h100, op_named(bwd, "conv.wgrad").work).memory_bound);
  CHECK(estimate_compute(*h100, op_named(fwd, "bn1").work).memory_bound);
  CHECK(estimate_compute(*h100, op_named(fwd, "relu2").work).memory_bound);
  CHECK(estimate_compute(*h100, op_named(bwd, "bn1.bwd").work).memory_bound);
}

// Lambda's lambdal/deeplearning-benchmark, pytorch/pytorch-train-throughput-fp16.csv
// (commit 0551cb7), row "RTX 4090", 1 GPU, resnet50: 1301 images/s at batch 448
// (NVIDIA DeepLearningExamples ResNet-50, fp16 AMP); recorded in the notes of
// C-Lambda-1xRTX3090-resnet50 in shared/reference/measurements.yaml.
constexpr double kMeasured4090ImagesPerS = 1301.0;

TEST_CASE("ResNet-50 DDP on one RTX 4090 against Lambda's measured images/s", "[plans][cnn]") {
  const testing::PlanRun run = testing::run_config("configs/rtx4090_x1_resnet50.yaml");
  const double images_per_s = 448.0 / run.step_s();
  // Simulated 1438 images/s, 10.5 % above the measurement. The model is
  // optimistic where it leaves things out: cuDNN's per-layer algorithm choice
  // (every conv here is one implicit GEMM at the catalogue's untuned
  // RTX 4090 efficiencies), channels-last layout transposes, the AMP casts of
  // the fp32 weights, the SGD step (modelled as Adam), eager-mode launch
  // gaps and data loading (the copy of uint8 pixels is all there is). It is
  // pessimistic on BN and ReLU, which it streams as separate unfused kernels
  // (a third of the step). 15 % covers the gap without hiding a change of
  // either sign; the RTX 4090 compute figures are uncalibrated.
  CHECK(images_per_s == Approx(kMeasured4090ImagesPerS).epsilon(0.15));
  CHECK(images_per_s > kMeasured4090ImagesPerS);  // known: still optimistic overall
  // The step is GPU compute: a third of it in memory-bound BN/ReLU/pool/add.
  const RendezvousTable rendezvous = match_rendezvous(run.scenario.trace, run.result);
  const TimeBreakdown rank0 = rank_breakdown(run.scenario.trace, run.result, rendezvous, 0);
  CHECK(rank0[Category::compute_memory_bound] > run.result.step_time / 4);
}

// Same CSV, row "1x H100 SXM5", resnet50: 2616 images/s.
constexpr double kMeasuredH100ImagesPerS = 2616.0;

TEST_CASE("ResNet-50 on one H100 SXM: a known 2x gap to Lambda's measurement", "[plans][cnn]") {
  const testing::PlanRun run = testing::run_config("configs/h100_x1_resnet50.yaml");
  const double images_per_s = 256.0 / run.step_s();
  // KNOWN GAP, recorded rather than tolerated: simulated 5525 images/s, 2.1x
  // the measured 2616. 86 % of the simulated step is memory-bound kernels
  // (BN, ReLU, pools, adds and the thin 1x1 convs) priced at 85 % of HBM3's
  // 3.35 TB/s, and the H100's compute is fast enough that nothing else
  // matters. Real eager PyTorch does not stream these small NHWC kernels at
  // that rate, and the data loading, cuDNN algorithm choice and launch gaps
  // the model leaves out weigh more when kernels are this short. The RTX 4090
  // point (above) agrees within 11 %, so the error grows with the GPU's
  // speed; this test fails when a model change closes or widens the gap, so
  // the figures here get updated with it.
  CHECK(images_per_s > 1.8 * kMeasuredH100ImagesPerS);
  CHECK(images_per_s < 2.5 * kMeasuredH100ImagesPerS);
}
