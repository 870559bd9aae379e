// Lab 1: memory bandwidth and the roofline. Runs `simctl roofline` on the
// lab's transformer, CNN and MLP as its README does, on DDR4 and DDR5 CPUs,
// GDDR6X GPUs and HBM2e/HBM3 GPUs, and checks the finding: element-wise ops,
// normalisation, optimizer steps and small matrix products sit under the
// bandwidth roof; large GEMMs and convolutions under the compute roof; and
// the ridge point rises from DDR to GDDR6X to HBM as compute outgrew memory.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/cli/run_binary.hpp"
#include "tests/labs/lab_run.hpp"

using nlohmann::json;
using simctl::testing::read_text;
using simctl::testing::run_simctl;

// Own namespace: every lab builds into test_labs (tests/labs/CMakeLists.txt).
namespace lab01 {

namespace {

constexpr const char* kDevices = "epyc-7742 epyc-9654 rtx-3090 rtx-4090 a100-sxm-80gb h100-sxm";

json roofline(const std::string& config) {
  const auto file = std::filesystem::temp_directory_path() / ("lab01_" + std::to_string(::getpid()) + ".json");
  const auto r =
      run_simctl("roofline labs/01-roofline/" + config + " --device " + kDevices + " --json " + file.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  json out = json::parse(read_text(file));
  std::filesystem::remove(file);
  REQUIRE(out.at("devices").size() == 6);
  return out;
}

const json& device(const json& roofline, const std::string& id) {
  for (const json& d : roofline.at("devices"))
    if (d.at("id") == id) return d;
  FAIL("no device " << id);
  throw;
}

std::string bound(const json& device, const std::string& group) {
  for (const json& g : device.at("groups"))
    if (g.at("name") == group) return g.at("bound");
  FAIL("no op group " << group << " on " << device.at("id"));
  throw;
}

}  // namespace

TEST_CASE("Lab 1: a transformer's norms, element-wise ops and optimizer are memory-bound, its GEMMs compute-bound",
          "[labs]") {
  const json gpt = roofline("gpt_1p3b_h100.yaml");
  for (const json& d : gpt.at("devices")) {
    INFO(d.at("id"));
    for (const char* group : {"ln1", "ln2", "ln1.bwd", "final_ln", "gelu", "gelu.bwd", "residual1", "optimizer.adam"})
      CHECK(bound(d, group) == "memory");
    for (const char* group : {"qkv", "attn_out", "mlp_up", "mlp_down", "mlp_up.wgrad", "mlp_down.dgrad", "lm_head"})
      CHECK(bound(d, group) == "compute");
  }
}

TEST_CASE("Lab 1: a CNN's 3x3 convolutions are compute-bound, its batch norms and ReLUs memory-bound", "[labs]") {
  const json cnn = roofline("resnet50_h100.yaml");
  for (const json& d : cnn.at("devices")) {
    INFO(d.at("id"));
    for (const char* group : {"conv2", "conv2.dgrad", "conv2.wgrad"}) CHECK(bound(d, group) == "compute");
    for (const char* group : {"bn1", "bn1.bwd", "relu1", "relu1.bwd", "add", "optimizer.adam"})
      CHECK(bound(d, group) == "memory");
  }
  // The 1x1 convolutions (about 110-125 FLOP/B) sit above the ridge of a DDR
  // CPU and of the RTX 3090, but the H100's ridge moved up to them: its
  // sustained ridge for these small-K GEMMs (92-213 FLOP/B, the measured
  // H100 GEMM fit) straddles them, so most of their passes are memory-bound
  // there and none is on the 3090.
  const char* one_by_one[] = {"conv1", "conv1.dgrad", "conv1.wgrad", "conv3", "conv3.dgrad", "conv3.wgrad"};
  for (const char* id : {"epyc-7742", "epyc-9654", "rtx-3090"}) {
    INFO(id);
    for (const char* group : one_by_one) CHECK(bound(device(cnn, id), group) == "compute");
  }
  int memory_bound_on_h100 = 0;
  for (const char* group : one_by_one) memory_bound_on_h100 += bound(device(cnn, "h100-sxm"), group) == "memory";
  CHECK(memory_bound_on_h100 >= 4);
}

TEST_CASE("Lab 1: an MLP's small matrix products sit far under both roofs", "[labs]") {
  const json mlp = roofline("mlp_h100.yaml");
  const json gpt = roofline("gpt_1p3b_h100.yaml");
  for (const char* id : {"rtx-3090", "rtx-4090", "a100-sxm-80gb", "h100-sxm"}) {
    INFO(id);
    const json& d = device(mlp, id);
    const double peak = d.at("peak_matrix_flops_per_s").get<double>();
    for (const json& g : d.at("groups")) {
      if (g.at("kind") != "gemm") continue;
      INFO(g.at("name"));
      // Below the peak ridge: even a full GPU would be bandwidth-bound ...
      CHECK(g.at("intensity_flop_per_byte").get<double>() < d.at("matrix_ridge_flop_per_byte").get<double>());
      // ... and launches and a few busy SMs leave it under 1 % of the peak.
      CHECK(g.at("attained_flops_per_s").get<double>() < 0.01 * peak);
    }
    for (const json& g : device(gpt, id).at("groups")) {
      if (g.at("name") == "mlp_up") CHECK(g.at("attained_flops_per_s").get<double>() > 0.5 * peak);
    }
  }
}

TEST_CASE("Lab 1: the ridge point rises from DDR4 to GDDR6X to HBM2e to HBM3", "[labs]") {
  const json gpt = roofline("gpt_1p3b_h100.yaml");
  const auto ridge = [&](const char* id) { return device(gpt, id).at("matrix_ridge_flop_per_byte").get<double>(); };
  const auto bandwidth = [&](const char* id) { return device(gpt, id).at("peak_bandwidth_bytes_per_s").get<double>(); };
  // Bandwidth: DDR4 < DDR5 < GDDR6X < HBM2e < HBM3 ...
  CHECK(bandwidth("epyc-7742") < bandwidth("epyc-9654"));
  CHECK(bandwidth("epyc-9654") < bandwidth("rtx-3090"));
  CHECK(bandwidth("rtx-3090") < bandwidth("a100-sxm-80gb"));
  CHECK(bandwidth("a100-sxm-80gb") < bandwidth("h100-sxm"));
  // ... yet matrix FLOP/s grew faster, so each newer part needs more FLOPs
  // per byte before it is compute-bound.
  CHECK(ridge("epyc-7742") < ridge("rtx-3090"));
  CHECK(ridge("epyc-9654") < ridge("rtx-3090"));
  CHECK(ridge("rtx-3090") < ridge("a100-sxm-80gb"));
  CHECK(ridge("a100-sxm-80gb") < ridge("h100-sxm"));
}

TEST_CASE("Lab 1: --plot draws the roofline chart", "[labs][plot]") {
  const auto dir = std::filesystem::temp_directory_path() / ("lab01_plot_" + std::to_string(::getpid()));
  const auto r = run_simctl(
      "roofline labs/01-roofline/resnet50_h100.yaml --device epyc-7742 rtx-3090 h100-sxm --plot " + dir.string());
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const auto png = dir / "roofline.png";
  CHECK_THAT(r.out, Catch::Contains("wrote " + png.string()));
  const std::string check = "/usr/bin/python3 plots/check_png.py " + png.string() + " --min-width 600 --min-height 400";
  CHECK(std::system((check + " >/dev/null 2>&1").c_str()) == 0);
  std::filesystem::remove_all(dir);
}

TEST_CASE("Lab 1: simctl lab run 1 prints the ridge order and which ops sit under which roof", "[labs][lab_run]") {
  const auto lab = simctl::testing::run_lab(1);
  INFO(lab.result.out << lab.result.err);
  REQUIRE(lab.result.exit_code == 0);
  // DDR4 < GDDR6X < HBM2e < HBM3: FLOP/s grew faster than bandwidth.
  CHECK(lab.number("ridge point, EPYC 7742 (DDR4)") < lab.number("ridge point, RTX 3090 (GDDR6X)"));
  CHECK(lab.number("ridge point, RTX 3090 (GDDR6X)") < lab.number("ridge point, A100 (HBM2e)"));
  CHECK(lab.number("ridge point, A100 (HBM2e)") < lab.number("ridge point, H100 (HBM3)"));
  CHECK(lab.at("ridge point, H100 (HBM3)").unit == "FLOP/B");
  CHECK(lab.at("GPT 1.3B LayerNorm on H100").text == "memory");
  CHECK(lab.at("GPT 1.3B mlp_up GEMM on H100").text == "compute");
  CHECK(lab.at("ResNet-50 1x1 conv1 on RTX 3090").text == "compute");
  CHECK(lab.at("ResNet-50 1x1 conv1 on H100").text == "memory");
  CHECK(lab.at("ResNet-50 3x3 conv2 on H100").text == "compute");
  CHECK(lab.at("MLP GEMM (fc) on H100, bound by").text == "launch");
  // The Adam step is bandwidth-bound: the H100 is faster by its bandwidth, not its FLOP/s.
  CHECK(lab.number("GPT 1.3B Adam step, EPYC 7742") / lab.number("GPT 1.3B Adam step, H100") > 10);
  CHECK(lab.at("GPT 1.3B Adam step, H100").unit == "ms");
}

}  // namespace lab01
