// Which fused attention kernel a run's attention ops are priced as: the
// config's choice, or the framework's default for the GPU (frameworks.yaml):
// Megatron-LM (Transformer Engine) and PyTorch 2.11's SDPA run cuDNN fused
// attention on Hopper and Blackwell and FlashAttention-2 elsewhere; the plain
// `ideal` framework FlashAttention-2.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <variant>

#include "sim/scenario/scenario.hpp"

using namespace simctl;

namespace {

std::string write_run(const std::string& name, const std::string& system, const std::string& extra) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_attention_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << "name: attention choice\nsystem: " << SIMCTL_SOURCE_DIR << "/configs/systems/" << system
                      << ".yaml\nworkload:\n  model: gpt2-small\n  parallel: {data: 8}\n  micro_batch: 1\n"
                      << extra;
  return file.string();
}

// The kernel the first rank's first forward attention op is priced as.
FusedAttention attention_kernel_of(const Scenario& s) {
  for (const Op& op : s.trace.programs.front()) {
    const auto* work = std::get_if<ComputeWork>(&op.work);
    if (work && work->kind == ComputeKind::attention && !work->backward) return work->attention_kernel;
  }
  FAIL("no attention op");
  return FusedAttention::flash2;
}

}  // namespace

TEST_CASE("Megatron-LM on H100 defaults to cuDNN fused attention, as Transformer Engine picks", "[plans][attention]") {
  const Scenario s = load_scenario(write_run("megatron_h100", "dgx_h100", "  framework: megatron-lm\n"));
  CHECK(s.workload.attention == AttentionKernel::cudnn);
  CHECK(attention_kernel_of(s) == FusedAttention::cudnn);
}

TEST_CASE("Megatron-LM on A100 and the ideal framework on H100 default to FlashAttention-2", "[plans][attention]") {
  const Scenario a100 = load_scenario(write_run("megatron_a100", "dgx_a100", "  framework: megatron-lm\n"));
  CHECK(attention_kernel_of(a100) == FusedAttention::flash2);
  const Scenario ideal = load_scenario(write_run("ideal_h100", "dgx_h100", "  framework: ideal\n"));
  CHECK(attention_kernel_of(ideal) == FusedAttention::flash2);
}

TEST_CASE("a config's attention wins over the framework's default, flash still means flash2", "[plans][attention]") {
  const Scenario fa3 =
      load_scenario(write_run("fa3_h100", "dgx_h100", "  framework: megatron-lm\n  attention: flash3\n"));
  CHECK(attention_kernel_of(fa3) == FusedAttention::flash3);
  const Scenario flash = load_scenario(write_run("flash_h100", "dgx_h100", "  attention: flash\n"));
  CHECK(flash.workload.attention == AttentionKernel::flash2);
  CHECK(attention_kernel_of(flash) == FusedAttention::flash2);
}

namespace attention_choice_test_detail {

// The dtypes of the first rank's attention ops, forward and backward.
std::vector<DType> attention_dtypes_of(const Scenario& s) {
  std::vector<DType> dtypes;
  for (const Op& op : s.trace.programs.front()) {
    const auto* work = std::get_if<ComputeWork>(&op.work);
    if (work && work->kind == ComputeKind::attention) dtypes.push_back(work->dtype);
  }
  return dtypes;
}

}  // namespace attention_choice_test_detail

using attention_choice_test_detail::attention_dtypes_of;

TEST_CASE("fp8 dot-product attention runs the attention ops in fp8, on Hopper and Blackwell",
          "[plans][attention][fp8]") {
  const std::string fp8 = "  framework: megatron-lm\n  precision: fp8\n";
  for (const char* system : {"dgx_h100", "dgx_b200"}) {
    INFO(system);
    const Scenario plain = load_scenario(write_run(std::string("fp8_") + system, system, fp8));
    const Scenario dpa = load_scenario(
        write_run(std::string("fp8_dpa_") + system, system, fp8 + "  fp8: {dot_product_attention: true}\n"));
    CHECK(attention_kernel_of(dpa) == FusedAttention::cudnn);
    const std::vector<DType> plain_dtypes = attention_dtypes_of(plain), dpa_dtypes = attention_dtypes_of(dpa);
    REQUIRE(dpa_dtypes.size() == plain_dtypes.size());
    REQUIRE_FALSE(dpa_dtypes.empty());
    for (std::size_t i = 0; i < dpa_dtypes.size(); ++i) {
      CHECK(plain_dtypes[i] == DType::bf16);
      CHECK(dpa_dtypes[i] == DType::fp8);
    }
  }
}

TEST_CASE("plain PyTorch defaults to cuDNN attention on Hopper and Blackwell, FlashAttention-2 on Ampere",
          "[plans][attention]") {
  // SDPA's check_prefer_cudnn_attention (cuDNN > 9.15 on sm90 and sm100), as our PyTorch 2.11 profiles show.
  for (const char* system : {"dgx_h100", "dgx_b200"}) {
    INFO(system);
    const Scenario s = load_scenario(write_run(std::string("pytorch_") + system, system, "  framework: pytorch\n"));
    CHECK(attention_kernel_of(s) == FusedAttention::cudnn);
  }
  const Scenario a100 = load_scenario(write_run("pytorch_a100", "dgx_a100", "  framework: pytorch\n"));
  CHECK(attention_kernel_of(a100) == FusedAttention::flash2);
}

// No fused kernel takes fp32 operands: a framework's default falls back to
// what the GPU prices in the run's precision (unfused for fp32) instead of
// failing in the compute model (found by fuzz_workload once Megatron-LM
// became the default).
TEST_CASE("a framework's default attention falls back to what the GPU prices in the run's precision",
          "[plans][attention]") {
  const Scenario fp32 = load_scenario(write_run("fp32_h100", "dgx_h100", "  precision: fp32\n"));
  CHECK(fp32.workload.framework == "megatron-lm");
  CHECK(fp32.workload.attention == AttentionKernel::unfused);
  const Scenario fp16 = load_scenario(write_run("fp16_h100", "dgx_h100", "  precision: fp16\n"));
  CHECK(fp16.workload.attention == AttentionKernel::cudnn);
  const Scenario bf16 = load_scenario(write_run("bf16_h100", "dgx_h100", "  precision: bf16\n"));
  CHECK(bf16.workload.attention == AttentionKernel::cudnn);
}

TEST_CASE("a fused attention asked for in a precision the GPU does not price it in is refused", "[plans][attention]") {
  try {
    load_scenario(write_run("fp32_flash2", "dgx_h100", "  precision: fp32\n  attention: flash2\n"));
    FAIL("accepted flash2 with fp32 operands");
  } catch (const ConfigError& e) {
    CHECK_THAT(e.what(), Catch::Contains("workload.attention"));
    CHECK_THAT(e.what(), Catch::Contains("this run's fp32; valid on this GPU in fp32: unfused"));
  }
}
