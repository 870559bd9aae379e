// Parallel plans that cannot run on the machine they name: each is one
// ConfigError naming the file, the line, the field and what would be valid,
// raised while loading, so `simctl check` and `simctl run` refuse alike.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "config_rejection.hpp"
#include "sim/config/config_error.hpp"
#include "sim/scenario/scenario.hpp"

using namespace simctl;

namespace {

// One DGX H100 (8 GPUs) and, unless told, a GPT-2-sized model with 12 heads
// and 12 layers.
std::string plan_run_config(const std::string& workload_lines, const std::string& model,
                            const std::string& system = "dgx_h100") {
  return "name: plan error case\nsystem: " + std::string(SIMCTL_SOURCE_DIR) + "/configs/systems/" + system +
         ".yaml\nworkload:\n  model: " + model + "\n" + workload_lines;
}

std::string write_plan_config(const std::string& name, const std::string& text) {
  return testing::write_test_config("simctl_plans", name, text);
}

struct Rejection {
  std::string name;
  std::string workload_lines;
  int line;            // of the offending field in the written file
  std::string field;   // the field path named
  std::string advice;  // what would be valid
  std::string model = "gpt2-small";
  std::string system = "dgx_h100";
};

// The one-line message loading `path` fails with.
std::string plan_rejection(const std::string& path) { return testing::load_rejection(path); }

void check_rejected(const Rejection& c) {
  const std::string path = write_plan_config(c.name, plan_run_config(c.workload_lines, c.model, c.system));
  const std::string message = plan_rejection(path);
  INFO(c.name << ": " << message);
  CHECK(message.find('\n') == std::string::npos);
  CHECK_THAT(message, Catch::StartsWith(path + ":" + std::to_string(c.line) + ":"));
  CHECK_THAT(message, Catch::Contains(c.field));
  CHECK_THAT(message, Catch::Contains(c.advice));
}

}  // namespace

TEST_CASE("tensor parallelism that does not divide the heads", "[plans][bad-input]") {
  check_rejected({"tp_heads", "  parallel: {tensor: 8}\n  micro_batch: 1\n", 5, "workload.parallel.tensor",
                  "12 attention heads (and its MLP width 3072); valid: 1, 2, 3, 4, 6, 12"});
}

TEST_CASE("pipeline stages that do not divide the layers", "[plans][bad-input]") {
  check_rejected({"pp_layers", "  parallel: {pipeline: 5}\n  micro_batch: 1\n", 5, "workload.parallel.pipeline",
                  "divide the model's 12 layers; valid: 1, 2, 3, 4, 6, 12"});
}

TEST_CASE("more ranks than the system has GPUs", "[plans][bad-input]") {
  check_rejected({"too_many_ranks",
                  "  parallel: {data: 2, tensor: 4, pipeline: 2}\n  micro_batch: 1\n  global_batch: 4\n", 5,
                  "workload.parallel", "at most 8"});
}

TEST_CASE("a world past the 131072 ranks a trace may hold is refused at the plan", "[plans][bad-input]") {
  // data 65536 is within its own bound; times 4 it is past the world's.
  check_rejected({"world_size", "  parallel: {data: 65536, tensor: 4}\n  micro_batch: 1\n  global_batch: 65536\n", 5,
                  "workload.parallel", "262144 ranks; at most 131072 are supported"});
}

TEST_CASE("bf16 on a GPU without bf16 compute is refused at precision, naming what it has", "[plans][bad-input]") {
  // A V100 has fp16 and fp32 tensor/vector rates only (NVIDIA V100 datasheet).
  check_rejected({"bf16_on_v100", "  micro_batch: 1\n  precision: bf16\n", 6, "workload.precision",
                  "NVIDIA Tesla V100 SXM2 32GB (v100-sxm2-32gb), which supports fp32, fp16; set precision",
                  "gpt2-small", "dgx1_v100"});
}

TEST_CASE("a global batch not divisible by micro-batch times data", "[plans][bad-input]") {
  check_rejected({"batch", "  parallel: {data: 4}\n  micro_batch: 2\n  global_batch: 12\n", 7, "workload.global_batch",
                  "must be a multiple of micro_batch * data = 2 * 4 = 8"});
}

TEST_CASE("a plan that does not fit in GPU memory gives the numbers", "[plans][bad-input]") {
  // 1.3B parameters with full activations of 16 sequences of 2048 tokens per GPU.
  const std::string path = write_plan_config(
      "oom", "name: oom\nsystem: " + std::string(SIMCTL_SOURCE_DIR) +
                 "/configs/systems/dgx_h100.yaml\nworkload:\n  model: gpt-1.3b\n  parallel: {data: 8}\n"
                 "  micro_batch: 64\n  global_batch: 512\n");
  const std::string message = plan_rejection(path);
  INFO(message);
  CHECK_THAT(message, Catch::Contains("out of memory"));
  CHECK_THAT(message, Catch::Contains("activations"));
  CHECK_THAT(message, Catch::Contains("80.0 GiB"));
  // `simctl memory` still shows the breakdown of the same plan.
  const Scenario shown = load_scenario(path, ScenarioOptions{true, false, {}, false, nullptr});
  CHECK(first_out_of_memory_rank(shown).has_value());
}

TEST_CASE("an unknown training framework", "[plans][bad-input]") {
  check_rejected({"framework", "  parallel: {data: 8}\n  micro_batch: 1\n  framework: deepspeed-magic\n", 7,
                  "workload.framework", "megatron-lm"});
}

TEST_CASE("FlashAttention-3 on an A100 is refused at the attention field", "[plans][bad-input][attention]") {
  check_rejected({"flash3_a100", "  parallel: {data: 8}\n  micro_batch: 1\n  attention: flash3\n", 7,
                  "workload.attention",
                  "FlashAttention-3 runs on Hopper GPUs only (it is built on wgmma and TMA); valid on this GPU in bf16: "
                  "flash2, unfused",
                  "gpt2-small", "dgx_a100"});
}

TEST_CASE("an attention kernel the GPU catalogue has no fit for is refused", "[plans][bad-input][attention]") {
  check_rejected({"cudnn_a100", "  parallel: {data: 8}\n  micro_batch: 1\n  attention: cudnn\n", 7,
                  "workload.attention", "no fitted efficiency for it there; valid on this GPU in bf16: flash2, unfused",
                  "gpt2-small", "dgx_a100"});
}

TEST_CASE("an unknown attention kernel lists the valid ones", "[plans][bad-input][attention]") {
  check_rejected(
      {"flash4", "  parallel: {data: 8}\n  micro_batch: 1\n  attention: flash4\n", 7, "workload.attention", "flash2"});
}

// Expert parallelism: the model is the run config's gpt2-small (dense) or,
// given a `model:` line of its own, Mixtral with 8 experts.
TEST_CASE("expert parallelism on a dense model", "[plans][bad-input][moe]") {
  check_rejected({"ep_dense", "  parallel: {data: 8, expert: 2}\n  micro_batch: 1\n", 5, "workload.parallel.expert",
                  "needs a mixture-of-experts model, but 'gpt2-small' is dense"});
}

TEST_CASE("expert parallelism that does not divide the experts", "[plans][bad-input][moe]") {
  check_rejected({"ep_experts", "  parallel: {data: 6, expert: 3}\n  micro_batch: 1\n", 5, "workload.parallel.expert",
                  "must divide the model's 8 experts; valid: 1, 2, 4, 8", "mixtral-8x7b"});
}

TEST_CASE("expert parallelism that does not divide the data-parallel ranks", "[plans][bad-input][moe]") {
  check_rejected({"ep_data", "  parallel: {data: 6, expert: 4}\n  micro_batch: 1\n", 5, "workload.parallel.expert",
                  "must divide data = 6 (expert parallelism subdivides the data-parallel ranks); valid: 1, 2",
                  "mixtral-8x7b"});
}

TEST_CASE("offload that does not fit in the host's memory gives the numbers", "[plans][bad-input][offload]") {
  // One GH200 whose LPDDR5X is cut to 64 GB: ZeRO-Offload of Llama 3 8B
  // needs ~105 GiB of host memory (optimizer states and gradients).
  const std::string text =
      "name: small host\n"
      "system:\n"
      "  name: GH200 with 64 GB of host memory\n"
      "  node_templates:\n"
      "    n:\n"
      "      parts:\n"
      "        grace: {kind: cpu_socket, model: grace}\n"
      "        lpddr: {kind: dram, model: lpddr5x, capacity: 64 GB}\n"
      "        gpu: {kind: gpu, model: gh200}\n"
      "      links:\n"
      "        - {between: [gpu, grace], kind: nvlink_c2c}\n"
      "        - {between: [grace, lpddr], kind: memory_bus, bandwidth: 512 GB/s}\n"
      "  nodes:\n"
      "    - {template: n, count: 1}\n"
      "workload:\n"
      "  model: llama3-8b\n"
      "  micro_batch: 1\n"
      "  offload: {optimizer: cpu}\n";
  const std::string path = write_plan_config("host_too_small", text);
  const std::string message = plan_rejection(path);
  INFO(message);
  CHECK_THAT(message, Catch::StartsWith(path + ":18:"));
  CHECK_THAT(message, Catch::Contains("workload.offload"));
  CHECK_THAT(message,
             Catch::Contains("out of host memory") && Catch::Contains("104.7 GiB") && Catch::Contains("59.6 GiB"));
}

// Context parallelism: gpt2-small has 12 heads and 1024-token sequences.
TEST_CASE("context parallelism that does not divide the sequence", "[plans][bad-input][context]") {
  check_rejected({"cp_sequence", "  parallel: {data: 2, context: 3}\n  micro_batch: 1\n", 5,
                  "workload.parallel.context", "seq_len 1024 must be a multiple of 2 * context = 6"});
}

TEST_CASE("Ulysses context parallelism whose degree does not divide the heads", "[plans][bad-input][context]") {
  check_rejected({"cp_heads", "  parallel: {context: 8, context_algorithm: all_to_all}\n  micro_batch: 1\n", 5,
                  "workload.parallel.context",
                  "must divide heads / tensor = 12 and kv_heads / tensor = 12; valid: 1, 2, "
                  "3, 4, 6, 12"});
}

TEST_CASE("context x tensor x pipeline x data beyond the system's GPUs", "[plans][bad-input][context]") {
  check_rejected({"cp_world", "  parallel: {data: 2, tensor: 2, context: 4}\n  micro_batch: 1\n  global_batch: 2\n", 5,
                  "workload.parallel.context", "data * context * tensor * pipeline = 2 * 4 * 2 * 1 = 16 ranks"});
}

TEST_CASE("context parallelism on a model without a sequence to split", "[plans][bad-input][context]") {
  check_rejected({"cp_mlp", "  parallel: {data: 2, context: 2}\n  micro_batch: 1\n", 5, "workload.parallel",
                  "runs data parallelism only (no tensor, pipeline, expert, context or gpus)", "mlp-33-512-10"});
}

TEST_CASE("an unknown context-parallel algorithm lists the valid ones", "[plans][bad-input][context]") {
  check_rejected({"cp_algorithm", "  parallel: {context: 2, context_algorithm: ring_flash}\n  micro_batch: 1\n", 5,
                  "workload.parallel.context_algorithm", "choose ring, all_gather, all_to_all or torch_all_gather"});
}

// Found by fuzz_system: a DRAM declared but cabled to nothing the GPUs reach
// failed inside the replay (a runtime_error from the copy's endpoints), not
// as a ConfigError at load.
TEST_CASE("host memory the GPUs cannot reach, when the step copies samples from it", "[plans][bad-input]") {
  const std::string text =
      "name: stranded dram\n"
      "system:\n"
      "  name: one GPU, DRAM cabled to nothing\n"
      "  node_templates:\n"
      "    host:\n"
      "      parts:\n"
      "        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}\n"
      "        dram: {kind: dram, model: ddr5-4800, capacity: 1 TiB}\n"
      "        gpu: {kind: gpu, model: h100-sxm, count: 1}\n"
      "      links:\n"
      "        - {between: [\"gpu[*]\", cpu], kind: pcie_gen5_x16}\n"
      "  nodes:\n"
      "    - {template: host, count: 1}\n"
      "workload:\n"
      "  model: gpt2-small\n"
      "  micro_batch: 1\n";
  const std::string path = write_plan_config("stranded_dram", text);
  const std::string message = plan_rejection(path);
  INFO(message);
  CHECK_THAT(message, Catch::StartsWith(path + ":3:"));
  CHECK_THAT(message, Catch::Contains("'node0.gpu' reaches no dram"));
  CHECK_THAT(message, Catch::Contains("{between: [cpu, dram], kind: memory_bus}"));
}

// The storage hint once suggested `kind: pcie_gen4_x4`, a kind the loader
// refuses: the cable it suggests, pasted into the template, must load.
TEST_CASE("storage the GPUs cannot reach: the suggested cable loads", "[plans][bad-input]") {
  const auto config = [](const std::string& extra_link) {
    return "name: stranded storage\n"
           "system:\n"
           "  name: one GPU, NVMe cabled to nothing\n"
           "  node_templates:\n"
           "    host:\n"
           "      parts:\n"
           "        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}\n"
           "        dram: {kind: dram, model: ddr5-4800, capacity: 1 TiB}\n"
           "        nvme: {kind: storage, model: nvme-gen4-samsung-990pro, capacity: 3840 GB}\n"
           "        gpu: {kind: gpu, model: h100-sxm, count: 1}\n"
           "      links:\n"
           "        - {between: [\"gpu[*]\", cpu], kind: pcie_gen5_x16}\n"
           "        - {between: [cpu, dram], kind: memory_bus}\n" +
           extra_link +
           "  nodes:\n"
           "    - {template: host, count: 1}\n"
           "workload:\n"
           "  model: gpt2-small\n"
           "  micro_batch: 1\n"
           "  input: {source: storage}\n";
  };
  const std::string path = write_plan_config("stranded_storage", config(""));
  const std::string message = plan_rejection(path);
  INFO(message);
  CHECK_THAT(message, Catch::Contains("'node0.gpu' reaches no storage"));
  const std::size_t from = message.find("{between: [cpu, nvme]");
  REQUIRE(from != std::string::npos);
  const std::string cable = message.substr(from, message.find('}', from) + 1 - from);
  const std::string fixed = write_plan_config("cabled_storage", config("        - " + cable + "\n"));
  CHECK_NOTHROW(load_scenario(fixed));
}

// Found by fuzz_run_config and fuzz_study: a file name longer than the OS
// allows made std::filesystem throw filesystem_error, not a ConfigError.
TEST_CASE("a system file name longer than the OS allows", "[plans][bad-input]") {
  const std::string text = "name: long name\nsystem: " + std::string(5000, 'x') +
                           ".yaml\nworkload:\n  model: gpt2-small\n  micro_batch: 1\n";
  const std::string path = write_plan_config("long_system_name", text);
  const std::string message = plan_rejection(path);
  INFO(message.substr(0, 200));
  CHECK_THAT(message, Catch::StartsWith(path + ":2:"));
  CHECK_THAT(message, Catch::Contains("cannot be used: File name too long"));
}

TEST_CASE("fp8 dot-product attention needs the cuDNN kernel", "[plans][bad-input][attention][fp8]") {
  check_rejected({"fp8_dpa_flash2",
                  "  parallel: {data: 8}\n  micro_batch: 1\n  precision: fp8\n  attention: flash2\n"
                  "  fp8: {dot_product_attention: true}\n",
                  9, "workload.fp8.dot_product_attention",
                  "Transformer Engine's cuDNN FusedAttention, but the attention kernel is 'flash2'; set "
                  "workload.attention: cudnn",
                  "gpt2-small", "dgx_h100"});
}

TEST_CASE("compile: true with a framework whose kernel chains simctl does not model", "[plans][bad-input]") {
  check_rejected({"compile_megatron",
                  "  parallel: {data: 8}\n  micro_batch: 1\n  framework: megatron-lm\n  compile: true\n", 8,
                  "workload.compile", "torch.compile is modelled for frameworks whose eager kernel chains it fuses",
                  "gpt2-small", "dgx_h100"});
}
