// Every kind of bad input gets one clear line (file:line:col, field, what is
// valid) and exit code 2 from the real binary: never a crash or a hang.
#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/cli/run_binary.hpp"

using simctl::testing::run_simctl;
using simctl::testing::write_temp_config;

namespace {

// A small valid run: two H100s on an NVSwitch with a host behind PCIe.
const std::string kGoodConfig = R"(system:
  name: Tiny box
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}
        dram: {kind: dram, model: ddr5-4800, capacity: 256 GiB}
        gpu: {kind: gpu, model: h100-sxm, count: 2}
        nvswitch: {kind: nvswitch}
        pcie: {kind: pcie_switch}
      links:
        - {between: ["gpu[*]", nvswitch], kind: nvlink4, bandwidth: 450 GB/s}
        - {between: ["gpu[*]", pcie], kind: pcie_gen5_x16}
        - {between: [pcie, cpu], kind: pcie_gen5_x16}
        - {between: [cpu, dram], kind: memory_bus}
  nodes:
    - {template: box, count: 1}
workload:
  model: gpt2-small
  parallel: {data: 2}
  micro_batch: 2
  global_batch: 4
)";

std::string replaced(const std::string& from, const std::string& to) {
  std::string text = kGoodConfig;
  const auto at = text.find(from);
  REQUIRE(at != std::string::npos);
  return text.replace(at, from.size(), to);
}

int line_count(const std::string& text) {
  int lines = 0;
  for (char c : text) lines += c == '\n';
  return lines;
}

struct BadCase {
  const char* name;
  std::string config;
  std::string location;  // "file:line:" expected in the message
  std::string field;     // field path expected in the message
  std::string advice;    // what would be valid
};

void check_rejected(const BadCase& c) {
  const std::string path = write_temp_config(std::string(c.name) + ".yaml", c.config);
  const auto result = run_simctl("check " + path);
  INFO(c.name << ": " << result.err);
  CHECK(result.exit_code == 2);
  CHECK(line_count(result.err) == 1);
  CHECK(result.out.empty());
  CHECK_THAT(result.err, Catch::Contains(path + ":" + c.location));
  CHECK_THAT(result.err, Catch::Contains(c.field));
  CHECK_THAT(result.err, Catch::Contains(c.advice));
}

}  // namespace

TEST_CASE("the good config passes check", "[cli]") {
  const std::string path = write_temp_config("good.yaml", kGoodConfig);
  const auto result = run_simctl("check " + path);
  INFO(result.err);
  CHECK(result.exit_code == 0);
  CHECK_THAT(result.out, Catch::Contains("ok"));
}

TEST_CASE("unknown field", "[cli][bad-input]") {
  check_rejected({"unknown_field", replaced("  micro_batch: 2\n", "  micro_batch: 2\n  colour: red\n"), "22:3",
                  "workload.colour", "valid fields here are"});
}

TEST_CASE("wrong unit", "[cli][bad-input]") {
  check_rejected({"wrong_unit", replaced("bandwidth: 450 GB/s", "bandwidth: 450 GB"), "12:", "bandwidth", "Gb/s"});
}

TEST_CASE("negative bandwidth", "[cli][bad-input]") {
  check_rejected({"negative_bandwidth", replaced("bandwidth: 450 GB/s", "bandwidth: -450 GB/s"), "12:", "bandwidth",
                  "must be positive"});
}

TEST_CASE("unknown device model", "[cli][bad-input]") {
  check_rejected({"unknown_model", replaced("model: h100-sxm,", "model: h100-sxmm,"), "8:", "model", "h100-sxm"});
}

TEST_CASE("link to a missing part", "[cli][bad-input]") {
  check_rejected({"missing_part", replaced("[pcie, cpu]", "[pcie, cpu2]"), "14:", "between", "cpu2"});
}

TEST_CASE("disconnected GPU", "[cli][bad-input]") {
  std::string config = replaced("count: 2}", "count: 3}");
  const auto at = config.find("\"gpu[*]\", nvswitch");
  config.replace(at, 8, "\"gpu[0..1]\"");
  const auto pcie = config.find("\"gpu[*]\", pcie");
  config.replace(pcie, 8, "\"gpu[0..1]\"");
  check_rejected({"disconnected_gpu", config, "", "gpu", "gpu2"});
}

TEST_CASE("YAML syntax error", "[cli][bad-input]") {
  check_rejected({"syntax_error", replaced("parallel: {data: 2}", "parallel: {data: 2"), "", "", "YAML syntax error"});
}

TEST_CASE("more ranks than GPUs", "[cli][bad-input]") {
  check_rejected({"too_many_ranks",
                  replaced("parallel: {data: 2}\n  micro_batch: 2\n  global_batch: 4",
                           "parallel: {data: 4}\n  micro_batch: 2\n  global_batch: 8"),
                  "20:", "workload.parallel.data", "at most 2"});
}

TEST_CASE("batch not divisible by micro-batch times data", "[cli][bad-input]") {
  check_rejected({"indivisible_batch", replaced("global_batch: 4", "global_batch: 6"), "22:", "workload.global_batch",
                  "multiple"});
}

TEST_CASE("a referenced file that does not exist", "[cli][bad-input]") {
  check_rejected(
      {"missing_file", "system: nowhere.yaml\nworkload: nowhere_either.yaml\n", "1:", "system", "does not exist"});
}

TEST_CASE("usage errors exit 2 with a hint", "[cli]") {
  auto no_config = run_simctl("run");
  CHECK(no_config.exit_code == 2);
  CHECK_THAT(no_config.err, Catch::Contains("expected: simctl run CONFIG"));
  auto unknown = run_simctl("fly configs/dgx_h100_x8.yaml");
  CHECK(unknown.exit_code == 2);
  CHECK_THAT(unknown.err, Catch::Contains("unknown command 'fly'"));
  auto missing = run_simctl("check /nonexistent/file.yaml");
  CHECK(missing.exit_code == 2);
  CHECK_THAT(missing.err, Catch::Contains("cannot open"));
}

// A plan whose trace would hold about a billion ops (512 ranks x 1024
// micro-batches x 1024 layers) is refused from the plan alone, before
// building a trace that would need hundreds of gigabytes.
TEST_CASE("a trace of a billion ops is refused before it is built", "[cli][bad-input][limits]") {
  const std::string config = R"(system:
  name: 64 boxes
  node_templates:
    box:
      parts:
        gpu: {kind: gpu, model: h100-sxm, count: 8}
        nvswitch: {kind: nvswitch}
        nic: {kind: nic, model: connectx-7-ndr, count: 8}
        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}
      links:
        - {between: ["gpu[*]", nvswitch], kind: nvlink4}
        - {between: ["gpu[*]", "nic[*]"], kind: pcie_gen5_x16}
        - {between: ["gpu[*]", cpu], kind: pcie_gen5_x16}
  nodes:
    - {template: box, count: 64}
  fabric: {kind: fat_tree, tiers: 2, radix: 64, link: infiniband_ndr, nics: "nic[*]"}
workload:
  model: {layers: 1024, hidden: 64, heads: 1, vocab: 64, seq_len: 16}
  parallel: {data: 512}
  micro_batch: 1
  global_batch: 524288
)";
  check_rejected({"billion_ops", config, "18:", "workload",
                  "the trace would hold at least 1.07e+09 ops (512 ranks x 1024 micro-batches x 1024 layers per rank "
                  "x 2), more than the 100000000 ops simctl builds"});
}

// A link so slow that the step runs past the clock: a ConfigError naming the
// config, the system and its slowest link, not an internal error.
TEST_CASE("a step that would run past the clock names the config and its slowest link", "[cli][bad-input][clock]") {
  const auto r = simctl::testing::run_simctl(
      "run " + std::string(SIMCTL_SOURCE_DIR) +
      "/configs/dgx_a100x8_megatron_22b.yaml --set 'system.node_templates.dgx_a100.links[0].bandwidth=1 KB/s'");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.err, Catch::Contains("dgx_a100x8_megatron_22b.yaml: error: field 'system': the simulated step runs "
                                    "past the clock's range"));
  CHECK_THAT(r.err, Catch::Contains("its slowest link is node0.gpu0 -> node0.nvswitch at 881 B/s"));
  CHECK_THAT(r.err, !Catch::Contains("schedule_at"));
}
