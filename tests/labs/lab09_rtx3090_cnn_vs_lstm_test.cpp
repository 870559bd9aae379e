// Lab 9: a 6x RTX 3090 workstation without NVLink, ResNet-50 against an LSTM
// language model under DDP. Asserts what the README's finding says: the
// CNN's step is bound by tensor-core FLOPs, the LSTM's recurrent step is made
// of small kernels far from the tensor-core peak, and the two models scale
// over PCIe according to the gradient bytes each moves per second of compute.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>

#include "models/devices/compute_model.hpp"
#include "sim/report/step_report.hpp"
#include "tests/cli/run_binary.hpp"
#include "tests/labs/lab_run.hpp"
#include "tests/workloads/plan_run.hpp"

using namespace simctl;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab09 {

namespace {

const std::string kLab = "labs/09-rtx3090-cnn-vs-lstm/";

struct Judged {
  testing::PlanRun run;
  StepReport report;
};

Judged judge(const std::string& config) {
  testing::PlanRun run = testing::run_config(kLab + config);
  StepReport report = build_step_report(run.scenario.trace, run.result, run.scenario.system, run.scenario.catalogue,
                                        run.scenario.labels, {run.scenario.costs, run.scenario.rank_memory});
  return {std::move(run), std::move(report)};
}

// samples/s by GPU count, from the study the README runs.
std::map<int, double> sweep_throughput(const std::string& study) {
  const std::string json = std::filesystem::temp_directory_path() / ("lab09_" + std::to_string(::getpid()) + ".json");
  const auto r = testing::run_simctl("sweep " + testing::config_path(kLab + study) + " --jobs 2 --json " + json);
  INFO(r.out << r.err);
  REQUIRE(r.exit_code == 0);
  const auto doc = nlohmann::json::parse(testing::read_text(json));
  std::filesystem::remove(json);
  std::map<int, double> out;
  for (const auto& p : doc.at("points")) {
    REQUIRE(p.at("status") == "ok");
    out[p.at("gpus").get<int>()] = p.at("samples_per_s").get<double>();
  }
  return out;
}

double efficiency(const std::map<int, double>& tput, int gpus) { return tput.at(gpus) / (gpus * tput.at(1)); }

const GpuSpec& rtx3090(const testing::PlanRun& run) {
  const GpuSpec* gpu = run.scenario.catalogue.find_gpu("rtx-3090");
  REQUIRE(gpu != nullptr);
  return *gpu;
}

// Time-weighted share of the named compute ops' time that the roofline
// finds memory-bound, over one rank's program.
struct OpClassTime {
  double memory_s = 0.0, compute_s = 0.0, launch_s = 0.0;
};

template <class Pred>
OpClassTime classify(const testing::PlanRun& run, Pred pred) {
  OpClassTime t;
  for (const Op& op : run.scenario.trace.programs.front()) {
    const auto* work = std::get_if<ComputeWork>(&op.work);
    if (work == nullptr || !pred(op.name)) continue;
    const ComputeEstimate e = estimate_compute(rtx3090(run), *work);
    const double s = ps_to_seconds(e.time);
    (e.bound == KernelBound::memory ? t.memory_s : e.bound == KernelBound::launch ? t.launch_s : t.compute_s) += s;
  }
  return t;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("lab 9: ResNet-50 on an RTX 3090 is compute-bound, its convolutions on the tensor-core side", "[labs]") {
  const Judged cnn = judge("resnet50.yaml");
  INFO("verdict: " << cnn.report.bottleneck);
  CHECK(cnn.report.bottleneck.rfind("compute-bound", 0) == 0);
  const TimeBreakdown& b = cnn.report.mean;
  CHECK(b[Category::compute_bound] > b[Category::compute_memory_bound]);
  const OpClassTime convs = classify(cnn.run, [](const std::string& n) { return contains(n, "conv"); });
  CHECK(convs.compute_s > 2.0 * convs.memory_s);
}

TEST_CASE("lab 9: the LSTM's per-step kernels are small: gates memory-bound, recurrent GEMMs far from peak", "[labs]") {
  const Judged lstm = judge("lstm.yaml");
  INFO("verdict: " << lstm.report.bottleneck);
  const OpClassTime gates = classify(lstm.run, [](const std::string& n) { return contains(n, ".gates"); });
  CHECK(gates.memory_s > gates.compute_s + gates.launch_s);
  // The per-step recurrent GEMMs (64 x 1500 -> 6000 forward, 64 x 6000 ->
  // 1500 data gradient) stream all of W_hh for 64 rows: their arithmetic
  // intensity is under the RTX 3090's peak ridge point, where the all-steps
  // input projection's is far over it. And they fill too few tiles to keep
  // the tensor cores busy: well under half the projection's FLOP/s.
  const GpuSpec& gpu = rtx3090(lstm.run);
  const double ridge = gpu.peak(DType::fp16).flops_per_s / gpu.memory_bandwidth.bytes_per_s;
  double step_flops = 0.0, step_s = 0.0, step_bytes = 0.0, proj_rate = 0.0, proj_intensity = 0.0;
  for (const Op& op : lstm.run.scenario.trace.programs.front()) {
    const auto* work = std::get_if<ComputeWork>(&op.work);
    if (work == nullptr) continue;
    if (contains(op.name, ".recurrent")) {
      step_flops += work->flops;
      step_bytes += work->memory_bytes;
      step_s += ps_to_seconds(estimate_compute(gpu, *work).time);
    }
    if (op.name == "rnn.l1.input_proj") {
      proj_rate = estimate_compute(gpu, *work).achieved_flops_per_s;
      proj_intensity = work->flops / work->memory_bytes;
    }
  }
  REQUIRE(step_s > 0.0);
  REQUIRE(proj_rate > 0.0);
  INFO("ridge " << ridge << " FLOP/B; recurrent " << step_flops / step_bytes << " FLOP/B, input projection "
                << proj_intensity << " FLOP/B");
  CHECK(step_flops / step_bytes < ridge);
  CHECK(proj_intensity > 5.0 * ridge);
  INFO("recurrent GEMMs " << step_flops / step_s / 1e12 << " TFLOP/s, input projection " << proj_rate / 1e12
                          << " TFLOP/s");
  CHECK(step_flops / step_s < 0.5 * proj_rate);
}

TEST_CASE("lab 9: over PCIe the LSTM scales worse than ResNet-50: more gradient bytes per compute-second", "[labs]") {
  const auto cnn = sweep_throughput("resnet50_scaling.yaml");
  const auto lstm = sweep_throughput("lstm_scaling.yaml");
  REQUIRE(cnn.size() == 4);
  REQUIRE(lstm.size() == 4);
  INFO("6-GPU scaling efficiency: ResNet-50 " << efficiency(cnn, 6) << ", LSTM " << efficiency(lstm, 6));
  CHECK(efficiency(lstm, 6) < efficiency(cnn, 6));
  CHECK(efficiency(lstm, 6) < efficiency(lstm, 2));
  // Why: fp32 gradient bytes all-reduced per second of one GPU's compute.
  const Judged c = judge("resnet50.yaml");
  const Judged l = judge("lstm.yaml");
  auto grad_rate = [](const Judged& j) {
    return 4.0 * j.run.scenario.trace.totals.parameters / ps_to_seconds(j.report.mean.compute());
  };
  INFO("gradient GB per compute-second: ResNet-50 " << grad_rate(c) / 1e9 << ", LSTM " << grad_rate(l) / 1e9);
  CHECK(grad_rate(l) > 10.0 * grad_rate(c));
}

TEST_CASE("Lab 9: simctl lab run 9 prints what bounds each model and how each scales over PCIe", "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(9);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  CHECK(lab.at("ResNet-50 on 6 GPUs is").text == "compute-bound");
  CHECK(lab.at("ResNet-50 3x3 conv2 on RTX 3090").text == "compute");
  CHECK(lab.at("LSTM gate kernels on RTX 3090").text == "memory");
  CHECK(lab.number("LSTM recurrent GEMM: intensity") < 75.9);  // under the RTX 3090's ridge
  const double resnet = lab.number("ResNet-50, 6 GPUs") / (6 * lab.number("ResNet-50, 1 GPU"));
  const double lstm = lab.number("LSTM, 6 GPUs") / (6 * lab.number("LSTM, 1 GPU"));
  INFO("scaling efficiency on 6 GPUs: ResNet-50 " << resnet << ", LSTM " << lstm);
  CHECK(resnet > 0.95);
  CHECK(lstm < 0.85);
  CHECK(lab.number("LSTM on 6 GPUs: exposed communication") > 10.0);
}

}  // namespace lab09
