// Trace files as workloads: an exported trace replays to the same report as
// the workload that generated it, and `simctl trace --ranks` rescales
// data-parallel replicas where the plan allows.
#include <catch2/catch.hpp>

#include "sim/config/config_error.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/step_report.hpp"
#include "sim/scenario/scenario.hpp"
#include "trace_files.hpp"
#include "workloads/trace_json.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace {

TimePs step_time(const Scenario& s) {
  Executor executor(s.system, s.catalogue, s.trace, s.tuning);
  return executor.run().step_time;
}

// The report without the lines that name the workload (its plan and the
// framework that priced it) or its memory
// estimate (a trace file carries no model to estimate from).
std::string without_workload_lines(const std::string& report) {
  std::istringstream in(report);
  std::string line, kept;
  bool in_memory = false;
  while (std::getline(in, line)) {
    if (line.rfind("Memory", 0) == 0) in_memory = true;
    if (in_memory && line.empty()) in_memory = false;
    if (in_memory || line.rfind("Workload", 0) == 0 || line.rfind("Priced", 0) == 0) continue;
    kept += line + "\n";
  }
  return kept;
}

// Exports `config`'s trace next to a replay config for `system`; returns the replay config.
std::string export_and_replay_config(const std::string& config, const std::string& name, const std::string& system,
                                     const std::vector<std::string>& extra = {}) {
  std::vector<std::string> args{"trace", config, (scratch_dir() / (name + ".json")).string()};
  args.insert(args.end(), extra.begin(), extra.end());
  const CliResult exported = simctl_cli(args);
  INFO(exported.err);
  REQUIRE(exported.exit_code == 0);
  return write_run_config(name + "_replay.yaml", system, "  trace: " + name + ".json\n");
}

std::string ddp_config(const std::string& name, const std::string& system) {
  return write_run_config(name, system,
                          "  model: gpt-1.3b\n  parallel: {data: 8}\n  micro_batch: 8\n  global_batch: 64\n");
}

std::string hybrid_config(const std::string& name, const std::string& strategy = "ddp") {
  return write_run_config(name, "dgx_h100.yaml",
                          "  model: gpt2-small\n  parallel: {tensor: 2, pipeline: 2, data: 2}\n  strategy: " +
                              strategy + "\n  micro_batch: 2\n  global_batch: 16\n");
}

}  // namespace

TEST_CASE("an exported DDP trace replays to the same report", "[trace-file][replay]") {
  const std::string config = source_path("configs/dgx_h100_x8.yaml");
  const std::string replay = export_and_replay_config(config, "ddp8", "dgx_h100.yaml");
  const CliResult generated = simctl_cli({"run", config});
  const CliResult replayed = simctl_cli({"run", replay});
  REQUIRE(replayed.exit_code == 0);
  CHECK_THAT(replayed.out, Catch::Contains("Workload  trace ddp8.json: gpt-1.3b (1.32 B params), DDP over 8 GPUs"));
  CHECK(without_workload_lines(replayed.out) == without_workload_lines(generated.out));
}

TEST_CASE("an exported launch-bound step replays to the same report, its host included", "[trace-file][replay]") {
  const std::string config = source_path("configs/reference/measured_small_gpt_h200x1.yaml");
  const std::string replay = export_and_replay_config(config, "small_gpt", "h200_sxm_x1.yaml");
  const CliResult generated = simctl_cli({"run", config});
  const CliResult replayed = simctl_cli({"run", replay});
  REQUIRE(replayed.exit_code == 0);
  CHECK_THAT(generated.out, Catch::Contains("launch-bound"));
  CHECK(without_workload_lines(replayed.out) == without_workload_lines(generated.out));
}

TEST_CASE("an exported TP x PP x DP trace replays to the same step time", "[trace-file][replay]") {
  const std::string config = hybrid_config("hybrid.yaml");
  const std::string replay = export_and_replay_config(config, "hybrid", "dgx_h100.yaml");
  CHECK(step_time(load_scenario(replay)) == step_time(load_scenario(config)));
}

TEST_CASE("the shipped trace example replays", "[trace-file][replay]") {
  const Scenario s = load_scenario(source_path("configs/dgx_h100_trace_replay.yaml"));
  CHECK(s.trace.ranks.size() == 4);
  CHECK(s.replays_trace_file);
  CHECK(step_time(s) > 0);
}

TEST_CASE("a trace with more ranks than the system has GPUs is refused", "[trace-file][bad-input]") {
  const std::string config = write_run_config("small_system.yaml", "h100_pcie_x2_nvlink.yaml",
                                              "  trace: " + source_path("configs/traces/pp2_dp2_example.json") + "\n");
  try {
    load_scenario(config);
    FAIL("accepted 4 ranks on 2 GPUs");
  } catch (const ConfigError& e) {
    INFO(e.what());
    CHECK(e.where().file == config);
    CHECK(e.field() == "workload.trace");
    CHECK_THAT(e.problem(), Catch::Contains("the trace has 4 ranks but system"));
    CHECK_THAT(e.problem(), Catch::Contains("use a system with at least 4 GPUs"));
  }
}

TEST_CASE("rescaling the DGX H100 DDP job from 8 to 16 ranks on 2 nodes", "[trace-file][rescale]") {
  const std::string config = ddp_config("ddp_x4.yaml", "dgx_h100_x4_ndr.yaml");
  const Scenario eight = load_scenario(config);
  const std::string replay = export_and_replay_config(config, "ddp16", "dgx_h100_x4_ndr.yaml", {"--ranks", "16"});
  const Scenario sixteen = load_scenario(replay);
  REQUIRE(sixteen.trace.ranks.size() == 16);
  CHECK(sixteen.trace.totals.tokens == 2 * eight.trace.totals.tokens);
  CHECK(sixteen.trace.totals.samples == 2 * eight.trace.totals.samples);
  CHECK(sixteen.trace.totals.model_flops == 2 * eight.trace.totals.model_flops);
  CHECK(sixteen.trace.totals.parameters == eight.trace.totals.parameters);
  REQUIRE(sixteen.trace.groups.size() == 1);
  CHECK(sixteen.trace.groups[0].size() == 16);
  CHECK(sixteen.trace.ops(15).size() == eight.trace.ops(7).size());
  // Weak scaling: the same work per rank, now with an all-reduce across two nodes.
  CHECK(step_time(sixteen) >= step_time(eight));
}

TEST_CASE("a rescaled trace keeps its host's issue time", "[trace-file][rescale]") {
  const std::string config =
      write_run_config("ddp_eager.yaml", "dgx_h100_x4_ndr.yaml",
                       "  model: gpt-1.3b\n  parallel: {data: 8}\n  micro_batch: 8\n  global_batch: 64\n"
                       "  framework: pytorch\n");
  const Scenario eight = load_scenario(config);
  REQUIRE(eight.trace.host_issue_seconds_per_op > 0.0);
  const std::string replay = export_and_replay_config(config, "ddp16_eager", "dgx_h100_x4_ndr.yaml", {"--ranks", "16"});
  CHECK(load_scenario(replay).trace.host_issue_seconds_per_op == eight.trace.host_issue_seconds_per_op);
}

TEST_CASE("rescaling a hybrid plan by whole replicas rebuilds its groups", "[trace-file][rescale]") {
  const std::string replay =
      export_and_replay_config(hybrid_config("hybrid4.yaml"), "hybrid16", "dgx_h100_x4_ndr.yaml", {"--ranks", "16"});
  const Scenario s = load_scenario(replay);
  CHECK(s.trace.ranks.size() == 16);
  for (const auto& group : s.trace.groups) CHECK((group.size() == 2 || group.size() == 4));
  CHECK(step_time(s) > 0);
}

TEST_CASE("rescales the plan forbids are refused with the reason", "[trace-file][rescale][bad-input]") {
  const std::string out = (scratch_dir() / "refused.json").string();
  const CliResult partial = simctl_cli({"trace", hybrid_config("hybrid_partial.yaml"), out, "--ranks", "6"});
  CHECK(partial.exit_code == 2);
  CHECK_THAT(partial.err, Catch::Contains("cannot rescale to 6 ranks"));
  CHECK_THAT(partial.err,
             Catch::Contains("a multiple of tensor * pipeline = 2 * 2 = 4 (whole data-parallel replicas)"));

  const CliResult zero = simctl_cli({"trace", hybrid_config("hybrid_zero.yaml", "zero1"), out, "--ranks", "8"});
  CHECK(zero.exit_code == 2);
  CHECK_THAT(zero.err, Catch::Contains("ZeRO and FSDP shard state over the data-parallel ranks"));

  const CliResult replayed =
      simctl_cli({"trace", source_path("configs/dgx_h100_trace_replay.yaml"), out, "--ranks", "8"});
  CHECK(replayed.exit_code == 2);
  CHECK_THAT(replayed.err, Catch::Contains("replays a trace file"));
}

// Found by fuzz_kineto: the mean breakdown summed ranks' times in 64 bits,
// which ranks whose steps near the clock's range (about 106 days) overflow.
TEST_CASE("the mean breakdown of ranks with steps of weeks does not overflow", "[workloads][trace_file]") {
  write_scratch("weeks.json", R"({"format": "simctl-trace", "version": 1, "compute_dtype": "bf16",
    "totals": {"model_flops": 0, "tokens": 0, "samples": 0, "parameters": 0}, "groups": [],
    "ranks": [{"ops": [{"kind": "host", "stream": "compute", "seconds": 5000000}]},
              {"ops": [{"kind": "host", "stream": "compute", "seconds": 5000000}]}]})");
  const Scenario s = load_scenario(write_run_config("weeks.yaml", "dgx_h100.yaml", "  trace: weeks.json\n"));
  Executor executor(s.system, s.catalogue, s.trace, s.tuning);
  const ExecutionResult result = executor.run();
  const StepReport report = build_step_report(s.trace, result, s.system, s.catalogue, s.labels);
  CHECK(report.mean.step == seconds_to_ps(5e6));
  CHECK(report.mean[Category::compute_launch_bound] == seconds_to_ps(5e6));
}
