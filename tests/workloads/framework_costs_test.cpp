// What a training step adds to the isolated-kernel model: tensor-core
// kernels at the clock a GPU holds under its power cap when they run back to
// back, and a framework entry's (workloads/frameworks.yaml) costs: the loss
// in fp32 under PyTorch autocast, a for-loop AdamW, and the kernel time
// factor fitted per GPU generation. Each is checked against this project's
// H100 measurements (models/devices/measured/).
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <variant>

#include "models/devices/compute_model.hpp"
#include "models/devices/device_catalogue.hpp"
#include "sim/exec/executor.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/devices/gemm_work.hpp"
#include "workloads/ddp_trace.hpp"
#include "workloads/transformer_ops.hpp"

using namespace simctl;

namespace {

nlohmann::json measured(const std::string& file) {
  std::ifstream in(std::string(SIMCTL_SOURCE_DIR) + "/models/devices/measured/" + file);
  REQUIRE(in.good());
  return nlohmann::json::parse(in)["results"];
}

nlohmann::json measured_kernels() { return measured("h100_sxm_kernels_2026-11-25.json"); }

ComputeWork bf16_gemm(std::int64_t m, std::int64_t n, std::int64_t k, bool sustained) {
  ComputeWork w = testing::gemm_work(m, n, k, DType::bf16);
  w.sustained = sustained;
  return w;
}

const GpuSpec& h100(const DeviceCatalogue& catalogue) {
  const GpuSpec* gpu = catalogue.find_gpu("h100-sxm");
  REQUIRE(gpu != nullptr);
  return *gpu;
}

// One block over `tokens` x `vocab` logits: the loss ops are what is asked about.
PassShape loss_shape(std::int64_t tokens, std::int64_t vocab, bool fp32) {
  TransformerSpec m;
  m.name = "inline";
  m.layers = 1;
  m.hidden = 2048;
  m.heads = 16;
  m.kv_heads = 16;
  m.ffn = 4 * m.hidden;
  m.vocab = vocab;
  m.seq_len = 1024;
  PassShape p = whole_model_shape(m, tokens / m.seq_len, DType::bf16, DType::bf16);
  p.loss_in_fp32 = fp32;
  return p;
}

// Seconds the forward and backward loss kernels (cross_entropy*) take.
std::pair<double, double> loss_seconds(const GpuSpec& gpu, const PassShape& p) {
  const auto sum = [&](const std::vector<ModelOp>& ops) {
    double s = 0.0;
    for (const ModelOp& op : ops) {
      if (op.name.rfind("cross_entropy", 0) == 0) s += static_cast<double>(estimate_compute(gpu, op.work).time) * 1e-12;
    }
    return s;
  };
  return {sum(forward_ops(p)), sum(backward_ops(p))};
}

std::string write_framework_run(const std::string& name, const std::string& system, const std::string& framework) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_framework_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << "name: framework costs\nsystem: " << SIMCTL_SOURCE_DIR << "/configs/systems/" << system
                      << ".yaml\nworkload:\n  model: gpt2-small\n  parallel: {data: 8}\n  micro_batch: 1\n"
                      << (framework.empty() ? "" : "  framework: " + framework + "\n");
  return file.string();
}

double lm_head_flops(const Scenario& s) {
  for (const Op& op : s.trace.programs.front()) {
    const auto* work = std::get_if<ComputeWork>(&op.work);
    if (work && op.name == "lm_head") return work->flops;
  }
  FAIL("no lm_head op");
  return 0.0;
}

}  // namespace

TEST_CASE("tensor-core kernels of a training step run at the H100's power-capped clock, as measured",
          "[plans][framework]") {
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  const GpuSpec& gpu = h100(catalogue);
  const GpuSpec* a100 = catalogue.find_gpu("a100-sxm-80gb");
  REQUIRE(a100 != nullptr);
  int checked = 0;
  double ratio_sum = 0.0;
  for (const auto& r : measured("h100_sxm_sustained_2026-11-26.json")) {
    const ComputeWork burst = bf16_gemm(r["m"], r["n"], r["k"], false);
    const ComputeWork sustained = bf16_gemm(r["m"], r["n"], r["k"], true);
    const double burst_s = static_cast<double>(estimate_compute(gpu, burst).time) * 1e-12;
    const double sustained_s = static_cast<double>(estimate_compute(gpu, sustained).time) * 1e-12;
    INFO(r["m"] << "x" << r["n"] << "x" << r["k"] << ": modelled " << sustained_s * 1e3 << " ms sustained, measured "
                << r["sustained_20_30s_ms"].get<double>() << " ms");
    // A step's GEMM takes the measured slowdown over the burst the kernel fit prices ...
    CHECK(sustained_s / burst_s == Approx(gpu.compute.sustained_tensor_slowdown).epsilon(0.01));
    // ... and, the kernel fit being timed at burst clock, lands within 5 % of the
    // measured burst and sustained times. (The first fit came from a sweep that
    // ran at the power cap: it erred up to 15 % high here.)
    CHECK(burst_s / (r["burst_median_ms"].get<double>() * 1e-3) == Approx(1.0).epsilon(0.05));
    CHECK(sustained_s / (r["sustained_20_30s_ms"].get<double>() * 1e-3) == Approx(1.0).epsilon(0.05));
    // No measured slowdown on the A100: its kernels are priced as before.
    CHECK(estimate_compute(*a100, sustained).time == estimate_compute(*a100, burst).time);
    ratio_sum += r["ratio_sustained_over_burst_time"].get<double>();
    ++checked;
  }
  REQUIRE(checked == 3);
  // The catalogue's figure is the measured mean.
  CHECK(gpu.compute.sustained_tensor_slowdown == Approx(ratio_sum / checked).epsilon(0.005));
  // Memory-bound kernels keep their time: HBM does not run at the SM clock.
  ComputeWork copy;
  copy.kind = ComputeKind::elementwise;
  copy.memory_bytes = 1e9;
  copy.flops = 1e8;
  ComputeWork sustained_copy = copy;
  sustained_copy.sustained = true;
  CHECK(estimate_compute(gpu, sustained_copy).time == estimate_compute(gpu, copy).time);
}

TEST_CASE("the fp32 loss of PyTorch autocast is priced within 20 % of our H100 measurement", "[plans][framework]") {
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  const GpuSpec& gpu = h100(catalogue);
  int checked = 0;
  for (const auto& r : measured_kernels()) {
    if (r.value("op", std::string()) != "cross_entropy_fp32") continue;  // not every entry is an op
    const std::int64_t tokens = r["shape"][0], vocab = r["shape"][1];
    const double measured_s = (r["fwd_ms"].get<double>() + r["bwd_ms"].get<double>()) * 1e-3;
    const auto [fwd, bwd] = loss_seconds(gpu, loss_shape(tokens, vocab, true));
    INFO("tokens " << tokens << ", vocab " << vocab << ": modelled " << (fwd + bwd) * 1e3 << " ms, measured "
                   << measured_s * 1e3 << " ms");
    CHECK((fwd + bwd) / measured_s == Approx(1.0).epsilon(0.20));
    // The fused bf16 kernel of Megatron costs a fraction of it: without the
    // upcast copy the modelled loss would miss the measurement by far.
    const auto [fused_fwd, fused_bwd] = loss_seconds(gpu, loss_shape(tokens, vocab, false));
    CHECK(fused_fwd + fused_bwd < 0.5 * measured_s);
    ++checked;
  }
  CHECK(checked == 2);
}

TEST_CASE("a for-loop AdamW is priced within 20 % of our H100 measurement", "[plans][framework]") {
  const DeviceCatalogue catalogue = DeviceCatalogue::load();
  const GpuSpec& gpu = h100(catalogue);
  WorkloadSpec spec;  // the measurement: fp32 weights and gradients, no 16-bit copy
  spec.model.name = "inline";
  spec.model.layers = 24;
  spec.model.hidden = 2048;
  spec.model.heads = 16;
  spec.model.kv_heads = 16;
  spec.model.ffn = 8192;
  spec.model.vocab = 50304;
  spec.model.seq_len = 2048;
  spec.precision = DType::fp32;
  spec.ddp.grad_dtype = DType::fp32;
  const double params = static_cast<double>(parameter_count(spec));
  const auto seconds_per_param = [&](bool fused) {
    spec.optimizer_fused = fused;
    return static_cast<double>(estimate_compute(gpu, adam_step_work(spec)).time) * 1e-12 / params;
  };
  int checked = 0;
  for (const auto& r : measured_kernels()) {
    if (r["kind"] != "optimizer" || r["parameters"].get<double>() < 3e8) continue;  // launch-bound below
    const double per_param = r["time_ms"].get<double>() * 1e-3 / r["parameters"].get<double>();
    if (r["op"] == "adamw_for_loop") {
      CHECK(seconds_per_param(false) / per_param == Approx(1.0).epsilon(0.20));
      CHECK(seconds_per_param(true) < 0.5 * per_param);  // the fused price would miss it
      ++checked;
    }
  }
  // (The fused kernel itself measures 2.3-2.5 TB/s, below the roofline's 2.9:
  // not this mechanism, and not asserted here.)
  CHECK(checked == 2);
}

TEST_CASE("a framework's kernel time factor is the one fitted for the GPU generation it runs on",
          "[plans][framework]") {
  const Scenario ideal_h100 = load_scenario(write_framework_run("ideal_h100", "dgx_h100", "ideal"));
  const Scenario megatron_h100 = load_scenario(write_framework_run("megatron_h100", "dgx_h100", "megatron-lm"));
  const Scenario megatron_a100 = load_scenario(write_framework_run("megatron_a100", "dgx_a100", "megatron-lm"));
  const Scenario composer_h100 = load_scenario(write_framework_run("composer_h100", "dgx_h100", "composer"));
  const Scenario composer_a100 = load_scenario(write_framework_run("composer_a100", "dgx_a100", "composer"));
  // megatron-lm: its Hopper fit (on burst-clock kernels and the power-capped
  // clock) on H100, its A100 fit on Ampere.
  CHECK(megatron_h100.workload.kernel_time_factor == Approx(1.08));
  CHECK(megatron_a100.workload.kernel_time_factor == Approx(1.23));
  // composer: its Hopper fit on H100, no factor where it has none.
  CHECK(composer_h100.workload.kernel_time_factor == Approx(1.19));
  CHECK(composer_a100.workload.kernel_time_factor == Approx(1.0));
  // And it is what stretches the kernels.
  CHECK(lm_head_flops(composer_h100) == Approx(1.19 * lm_head_flops(ideal_h100)));
  CHECK(lm_head_flops(megatron_h100) == Approx(1.08 * lm_head_flops(ideal_h100)));
}

// nemo-25.04 names megatron-lm as its base (frameworks.yaml): it takes every
// figure it does not give from there, and its own Blackwell factor.
TEST_CASE("a framework release takes its base's figures and changes only its own", "[plans][framework]") {
  const Scenario base_h100 = load_scenario(write_framework_run("base_h100", "dgx_h100", "megatron-lm"));
  const Scenario release_h100 = load_scenario(write_framework_run("release_h100", "dgx_h100", "nemo-25.04"));
  const Scenario base_b200 = load_scenario(write_framework_run("base_b200", "dgx_b200", "megatron-lm"));
  const Scenario release_b200 = load_scenario(write_framework_run("release_b200", "dgx_b200", "nemo-25.04"));
  const Scenario release_a100 = load_scenario(write_framework_run("release_a100", "dgx_a100", "nemo-25.04"));
  CHECK(release_h100.workload.framework == "nemo-25.04");
  CHECK(release_h100.workload.kernel_time_factor == Approx(base_h100.workload.kernel_time_factor));
  CHECK(release_a100.workload.kernel_time_factor == Approx(1.23));  // the base's Ampere fit
  CHECK(base_b200.workload.kernel_time_factor == Approx(1.08));
  CHECK(release_b200.workload.kernel_time_factor == Approx(1.28));
  CHECK(release_b200.workload.attention == base_b200.workload.attention);
  CHECK(release_b200.workload.host_issue_per_kernel == base_b200.workload.host_issue_per_kernel);
  CHECK(release_b200.workload.host_issue_per_kernel > 0);
  CHECK(lm_head_flops(release_b200) == Approx(1.28 / 1.08 * lm_head_flops(base_b200)));
}

TEST_CASE("the pytorch framework prices what a plain eager loop runs and nothing else", "[plans][framework]") {
  const Scenario ideal = load_scenario(write_framework_run("ideal_loop", "dgx_h100", "ideal"));
  const Scenario eager = load_scenario(write_framework_run("pytorch_loop", "dgx_h100", "pytorch"));
  // measure_train_step.py: F.cross_entropy(logits.float()) and AdamW(foreach=True).
  CHECK(eager.workload.loss_in_fp32);
  CHECK(eager.workload.loss_unfused_fp32);
  CHECK_FALSE(eager.workload.optimizer_fused);
  CHECK_FALSE(ideal.workload.loss_in_fp32);
  CHECK(ideal.workload.optimizer_fused);
  // No fitted factor: the kernels keep their prices.
  CHECK(eager.workload.kernel_time_factor == Approx(1.0));
  CHECK(lm_head_flops(eager) == Approx(lm_head_flops(ideal)));
}

TEST_CASE("torch.compile fuses torchtitan's eager kernel chains: its 8B step runs faster, as published",
          "[plans][framework][eager]") {
  const std::string config =
      std::string(SIMCTL_SOURCE_DIR) + "/configs/reference/torchtitan_llama3_8b_fsdp_grand_teton_x8.yaml";
  const auto step_ms = [&config](bool compile) {
    ScenarioOptions options;
    options.overrides = ConfigOverrides{{"workload.compile", compile ? "true" : "false", {}}};
    const Scenario s = load_scenario(config, options);
    Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
    return ps_to_ms(executor.run().step_time);
  };
  // torchtitan's Table 1 (8 H100): 5,762 tokens/s/GPU eager, 6,667 compiled, 1.157x.
  const double ratio = step_ms(false) / step_ms(true);
  INFO("eager / compiled step: " << ratio);
  CHECK(ratio > 1.10);
  CHECK(ratio < 1.25);
}

// A config without `framework:` runs what its model family is trained with
// (frameworks.yaml, default_framework): Megatron-LM for a transformer, priced
// with the factor fitted for each generation it runs on and nothing fitted
// on another generation where none is (CDNA); eager PyTorch for an MLP.
TEST_CASE("a config without a framework runs a realistic one, fitted per GPU generation", "[plans][framework]") {
  const Scenario h100 = load_scenario(write_framework_run("default_h100", "dgx_h100", ""));
  const Scenario a100 = load_scenario(write_framework_run("default_a100", "dgx_a100", ""));
  const Scenario b200 = load_scenario(write_framework_run("default_b200", "dgx_b200", ""));
  const Scenario mi300x = load_scenario(write_framework_run("default_mi300x", "mi300x_x8", ""));
  for (const Scenario* s : {&h100, &a100, &b200, &mi300x}) {
    CHECK(s->workload.framework == "megatron-lm");
    CHECK(s->workload.host_issue_per_kernel == seconds_to_ps(54e-6));
  }
  CHECK(h100.workload.kernel_time_factor == Approx(1.08));
  CHECK(a100.workload.kernel_time_factor == Approx(1.23));
  CHECK(b200.workload.kernel_time_factor == Approx(1.08));
  CHECK(mi300x.workload.kernel_time_factor == Approx(1.0));
  CHECK(h100.workload.attention == AttentionKernel::cudnn);
  CHECK(a100.workload.attention == AttentionKernel::flash2);
  const Scenario ideal = load_scenario(write_framework_run("default_vs_ideal", "dgx_h100", "ideal"));
  CHECK(lm_head_flops(h100) == Approx(1.08 * lm_head_flops(ideal)));
  CHECK_THAT(h100.labels.priced_by, Catch::Contains("framework megatron-lm, the default (kernel times x1.08"));
}

TEST_CASE("an MLP without a framework runs eager PyTorch's loop", "[plans][framework]") {
  const Scenario mlp = load_scenario(std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_h100_x8_mlp_ddp.yaml");
  CHECK(mlp.workload.framework == "pytorch");
  CHECK(mlp.trace.host_issue_seconds_per_op == Approx(54e-6));
}
