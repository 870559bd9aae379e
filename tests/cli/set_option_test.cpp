// `--set FIELD=VALUE` on run, check and memory: a what-if without an edited
// copy of the config, answering as the edited copy would, and bad --set
// values blamed on the --set that wrote them.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <string>

#include "tests/cli/option_refusal.hpp"
#include "tests/cli/run_binary.hpp"

using simctl::testing::check_refusals;
using simctl::testing::run_simctl;
using simctl::testing::write_temp_config;

namespace {

const std::string kConfig = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_h100_x8.yaml";

// The report's line that starts with `label`, or "" when it has none.
std::string line_of(const std::string& report, const std::string& label) {
  const std::size_t at = report.find("\n" + label);
  if (at == std::string::npos) return "";
  return report.substr(at + 1, report.find('\n', at + 1) - at - 1);
}

}  // namespace

TEST_CASE("run --set answers as a config that says the same", "[cli][set]") {
  // The run config and its workload file with the A100 system and TP 2 x DP 4 written in.
  const std::string configs = std::string(SIMCTL_SOURCE_DIR) + "/configs/";
  const std::string edited = write_temp_config("set_equivalent.yaml",
                                               "name: DGX H100, GPT 1.3B, DDP x8\n"
                                               "system: " +
                                                   configs +
                                                   "systems/dgx_a100.yaml\n"
                                                   "workload:\n"
                                                   "  model: gpt-1.3b\n"
                                                   "  parallel: {tensor: 2, data: 4}\n"
                                                   "  strategy: ddp\n"
                                                   "  micro_batch: 8\n"
                                                   "  global_batch: 64\n"
                                                   "  precision: bf16\n"
                                                   "  optimizer: adam\n"
                                                   "  ddp: {bucket_size: 25 MiB, first_bucket_size: 1 MiB, "
                                                   "overlap: true, grad_dtype: bf16}\n"
                                                   "  activation_recompute: none\n");
  const auto set = run_simctl("run " + kConfig + " --set system=systems/dgx_a100.yaml" +
                              " --set 'workload.parallel={tensor: 2, data: 4}'");
  const auto same = run_simctl("run " + edited);
  const auto base = run_simctl("run " + kConfig);
  REQUIRE(set.exit_code == 0);
  REQUIRE(same.exit_code == 0);
  REQUIRE(base.exit_code == 0);
  CHECK(set.out.rfind("with --set system=systems/dgx_a100.yaml --set workload.parallel={tensor: 2, data: 4}\n", 0) ==
        0);
  // Everything after that line is the edited copy's report, byte for byte.
  CHECK(set.out.substr(set.out.find('\n') + 1) == same.out);
  CHECK(line_of(set.out, "Workload").find("TP 2") != std::string::npos);
  CHECK(line_of(set.out, "Step time") != line_of(base.out, "Step time"));
}

TEST_CASE("check and memory take --set too", "[cli][set]") {
  const auto check = run_simctl("check " + kConfig + " --set workload.micro_batch=4");
  REQUIRE(check.exit_code == 0);
  CHECK(check.out.find("micro-batch 4") != std::string::npos);
  const auto fits = run_simctl("memory " + kConfig);
  const auto memory =
      run_simctl("memory " + kConfig + " --set workload.micro_batch=32 --set workload.global_batch=256");
  CHECK(fits.exit_code == 0);
  CHECK(memory.exit_code == 1);  // what `simctl memory` returns for a plan over capacity
  CHECK(memory.out.rfind("with --set workload.micro_batch=32 --set workload.global_batch=256\n", 0) == 0);
  CHECK(fits.out.find("OUT OF MEMORY") == std::string::npos);
  CHECK(memory.out.find("OUT OF MEMORY") != std::string::npos);
}

TEST_CASE("a bad --set is refused naming the --set", "[cli][set][bad-input]") {
  check_refusals("run " + kConfig, "--set",
                 {{"workload.micro_batch", "expected FIELD=VALUE"},
                  {"=4", "expected FIELD=VALUE"},
                  {"workload.micro_batch=", "expected FIELD=VALUE"}});
  check_refusals("check " + kConfig, "--set",
                 {{"workload.micro_batch=eight", "field 'workload.micro_batch': expected"},
                  {"workload.paralel.tensor=2", "'paralel' is not a field of `workload`; valid fields are task, model"},
                  {"nosuch=1", "'nosuch' is not a field of a run config; valid fields are name"},
                  {"system.nodes[0].count=8 GiB", "field 'system.nodes[0].count': expected an integer"},
                  {"system=systems/none.yaml", "field 'system': file"},
                  {"system.nodes[3].count=2", "has no element [3]"}});
}

// After --set into the system, its name (the user's words for the file as
// written: "NDR rail-optimised fat tree") had stayed in the header, the JSON,
// the trace and so the charts: each now says which fields were changed.
TEST_CASE("a system changed by --set is labelled modified everywhere its name is shown", "[cli][set]") {
  const std::string config = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_h100x4_gpt1p3b_ddp_sharp.yaml";
  const std::string json = write_temp_config("modified.json", ""), trace = write_temp_config("modified_trace.json", "");
  const auto r = run_simctl("run " + config +
                            " --set system.fabric.link=infiniband_hdr --set system.fabric.rail_optimised=false"
                            " --json " +
                            json + " --trace " + trace);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  const std::string note = "(modified: fabric.link=infiniband_hdr, fabric.rail_optimised=false)";
  CHECK_THAT(line_of(r.out, "System "), Catch::Contains(note));
  CHECK_THAT(simctl::testing::read_text(json), Catch::Contains(note));
  CHECK_THAT(simctl::testing::read_text(trace), Catch::Contains(note));
  // A --set outside the system, or none, leaves its name alone.
  const auto workload_only = run_simctl("run " + config + " --set workload.micro_batch=4");
  CHECK_THAT(workload_only.out, !Catch::Contains("modified"));
}
