// Importing and replaying a profiled step: a synthetic Kineto trace of two
// ranks with KERNELS kernels each (GEMMs and elementwise kernels with their
// launches, an all-reduce every 50 kernels), parsed, imported and replayed
// on a DGX H100. Prints the CPU time of each phase.
//
//   bench_kineto [KERNELS]   (default 10000)
#include <chrono>
#include <cstdio>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/process_stats.hpp"
#include "sim/config/data_root.hpp"
#include "sim/exec/executor.hpp"
#include "sim/scenario/scenario.hpp"
#include "workloads/kineto_import.hpp"
#include "workloads/trace_json.hpp"

using namespace simctl;
using nlohmann::json;

namespace {

// One rank's profile: a step of `kernels` kernels, each launched 2 us after
// the previous one returned, on one compute stream and one NCCL stream.
std::string synthetic_profile(int rank, int kernels) {
  json events = json::array();
  double host = 0.0, gpu = 5.0;
  std::int64_t correlation = 1;
  for (int i = 0; i < kernels; ++i) {
    const bool nccl = i % 50 == 49;
    const double dur = nccl ? 120.0 : (i % 3 == 0 ? 45.0 : 8.0);
    events.push_back({{"ph", "X"},
                      {"cat", "cuda_runtime"},
                      {"name", "cudaLaunchKernel"},
                      {"ts", host},
                      {"dur", 4.0},
                      {"args", {{"correlation", correlation}}}});
    gpu = std::max(gpu, host + 6.0);
    json args = {{"correlation", correlation}, {"stream", nccl ? 20 : 7}};
    if (nccl) {
      args["Collective name"] = "allreduce";
      args["In msg nelems"] = 4194304;
      args["Out msg nelems"] = 4194304;
      args["dtype"] = "BFloat16";
      args["Group size"] = 2;
      args["Process Group Ranks"] = "[0, 1]";
    }
    events.push_back({{"ph", "X"},
                      {"cat", "kernel"},
                      {"name", nccl ? "ncclKernel_AllReduce_RING_LL_Sum_bf16"
                                    : (i % 3 == 0 ? "sm90_xmma_gemm_bf16" : "elementwise_kernel")},
                      {"ts", gpu},
                      {"dur", dur},
                      {"tid", nccl ? 20 : 7},
                      {"args", args}});
    gpu += dur;
    host += 6.0;
    ++correlation;
  }
  events.push_back({{"ph", "X"}, {"cat", "user_annotation"}, {"name", "ProfilerStep#1"}, {"ts", 0.0}, {"dur", gpu}});
  return json{{"distributedInfo", {{"rank", rank}, {"world_size", 2}}}, {"traceEvents", events}}.dump();
}

double cpu_since(double mark) { return bench::cpu_seconds() - mark; }

}  // namespace

int main(int argc, char** argv) {
  const int kernels = argc > 1 ? std::stoi(argv[1]) : 10000;
  const std::string texts[] = {synthetic_profile(0, kernels), synthetic_profile(1, kernels)};

  double mark = bench::cpu_seconds();
  std::vector<KinetoFile> files;
  for (int r = 0; r < 2; ++r) files.push_back({"rank" + std::to_string(r), json::parse(texts[r])});
  const double parse_s = cpu_since(mark);

  mark = bench::cpu_seconds();
  KinetoImportOptions options;
  options.measured_on = "h100-sxm";
  const KinetoImport imported = import_kineto(files, options);
  const double import_s = cpu_since(mark);

  const std::string trace_path = "/tmp/simctl_bench_kineto.json";
  write_trace_file(trace_path, imported.trace, imported.description);
  const std::string config_path = "/tmp/simctl_bench_kineto.yaml";
  std::FILE* config = std::fopen(config_path.c_str(), "w");
  std::fprintf(config, "system: %s/configs/systems/dgx_h100.yaml\nworkload: {trace: simctl_bench_kineto.json}\n",
               data_root().c_str());
  std::fclose(config);

  mark = bench::cpu_seconds();
  const Scenario scenario = load_scenario(config_path);
  Executor executor(scenario.system, scenario.catalogue, scenario.trace, scenario.tuning, scenario.collectives);
  const ExecutionResult result = executor.run();
  const double replay_s = cpu_since(mark);

  std::printf("kernels per rank   %d (2 ranks, %zu ops after import)\n", kernels, imported.trace.op_count());
  std::printf("profiled step      %.3f ms\n", imported.steps.front().profiled_seconds * 1e3);
  std::printf("replayed step      %.3f ms\n", ps_to_ms(result.step_time));
  std::printf("                   CPU s\n");
  std::printf("parse JSON         %6.2f\n", parse_s);
  std::printf("import             %6.2f\n", import_s);
  std::printf("load + replay      %6.2f\n", replay_s);
  std::printf("import + replay    %6.2f\n", import_s + replay_s);
  std::printf("peak RSS           %.0f MB\n", bench::peak_rss_mb());
  return 0;
}
