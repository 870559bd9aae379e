// The host side of a step: reading samples from a disk, preprocessing them
// on the data loader's CPU workers and copying them to the GPU. A slow disk
// must show in the step time and in the breakdown; prefetching hides
// loading that is faster than compute and nothing more.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "plan_run.hpp"
#include "sim/report/step_report.hpp"
#include "tests/workloads/trace_files.hpp"
#include "workloads/trace_json.hpp"

using namespace simctl;

namespace {

// One H100 with a disk behind its host; GPT-2 small, 4 micro-batches of 8.
std::string run_config(const std::string& disk, const std::string& input) {
  return R"(system:
  name: one H100 and a disk
  node_templates:
    box:
      parts:
        cpu: {kind: cpu_socket, model: xeon-platinum-8480plus}
        dram: {kind: dram, model: ddr5-4800, capacity: 256 GiB}
        gpu: {kind: gpu, model: h100-sxm}
        disk: {kind: storage, model: )" +
         disk + R"(}
      links:
        - {between: [gpu, cpu], kind: pcie_gen5_x16}
        - {between: [cpu, dram], kind: memory_bus}
        - {between: [disk, cpu], kind: pcie_gen4_x16, bandwidth: 8 GB/s}
  nodes:
    - {template: box, count: 1}
workload:
  model: gpt2-small
  parallel: {data: 1}
  micro_batch: 8
  global_batch: 32
  precision: bf16
  input: )" +
         input + "\n";
}

StepReport run(const std::string& name, const std::string& disk, const std::string& input) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_input_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << run_config(disk, input);
  const auto plan = testing::run_scenario(load_scenario(file.string()));
  return build_step_report(plan.scenario.trace, plan.result, plan.scenario.system, plan.scenario.catalogue,
                           plan.scenario.labels);
}

double ms(TimePs t) { return ps_to_seconds(t) * 1e3; }

constexpr const char* kHdd = "hdd-sata-exos-x18";
constexpr const char* kNvme = "nvme-gen4-samsung-990pro";

}  // namespace

TEST_CASE("a hard disk without prefetch shows its reads in the step and the breakdown", "[plans][input]") {
  const StepReport cached = run("cached", kHdd, "{source: host_memory}");
  const StepReport hdd = run("hdd", kHdd, "{source: storage, bytes_per_sample: 2 MiB, prefetch: false}");
  // 32 samples of 2 MiB at the disk's 270 MB/s, each of 4 reads paying its 4.16 ms access.
  const double read_ms = 32 * 2 * 1048576.0 / 270e6 * 1e3 + 4 * 4.16;
  INFO("cached " << ms(cached.step_time) << " ms, hdd " << ms(hdd.step_time) << " ms, reads " << read_ms << " ms");
  CHECK(ms(hdd.step_time - cached.step_time) == Approx(read_ms).epsilon(0.02));
  CHECK(ms(hdd.mean[Category::data_loading]) == Approx(read_ms).epsilon(0.02));
  CHECK(hdd.mean.compute() == cached.mean.compute());
  CHECK_THAT(hdd.bottleneck, Catch::StartsWith("input-bound"));
}

TEST_CASE("prefetching hides reads faster than compute, and only those", "[plans][input]") {
  const StepReport cached = run("cached", kNvme, "{source: host_memory}");
  const StepReport nvme = run("nvme", kNvme, "{source: storage, bytes_per_sample: 2 MiB}");
  const StepReport nvme_serial =
      run("nvme_serial", kNvme, "{source: storage, bytes_per_sample: 2 MiB, prefetch: false}");
  // NVMe reads of 8 x 2 MiB (~2.6 ms) hide behind each micro-batch's compute
  // except the first, which nothing precedes.
  CHECK(ms(nvme.step_time - cached.step_time) < 4.0);
  CHECK(nvme_serial.step_time > nvme.step_time);
  // A hard disk is slower than compute: prefetch overlaps, but the disk sets the pace.
  const StepReport hdd = run("hdd_prefetch", kHdd, "{source: storage, bytes_per_sample: 2 MiB}");
  const double disk_ms = 32 * 2 * 1048576.0 / 270e6 * 1e3;
  CHECK(ms(hdd.step_time) > disk_ms);
  CHECK(ms(hdd.step_time) < disk_ms + ms(cached.step_time));
}

TEST_CASE("preprocessing time is split over the loader's workers", "[plans][input]") {
  const StepReport cached = run("cached", kNvme, "{source: host_memory}");
  const StepReport one = run("one_worker", kNvme, "{preprocess_per_sample: 5 ms, workers: 1, prefetch: false}");
  const StepReport eight = run("eight_workers", kNvme, "{preprocess_per_sample: 5 ms, workers: 8, prefetch: false}");
  // 4 micro-batches of 8 samples: 8 x 5 ms each with one worker, 5 ms with eight.
  CHECK(ms(one.step_time - cached.step_time) == Approx(4 * 40.0).epsilon(0.01));
  CHECK(ms(eight.step_time - cached.step_time) == Approx(4 * 5.0).epsilon(0.01));
  CHECK(ms(one.mean[Category::data_loading]) == Approx(160.0).epsilon(0.01));
}

TEST_CASE("a trace with storage reads and preprocessing survives a trace file", "[plans][input][trace]") {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_input_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "loading.yaml";
  std::ofstream(file) << run_config(kHdd, "{source: storage, preprocess_per_sample: 1 ms, workers: 4}");
  const Trace trace = load_scenario(file.string()).trace;
  const auto& first = trace.ops(0);
  REQUIRE(std::holds_alternative<CopyCall>(first[0].work));
  REQUIRE(std::holds_alternative<HostWork>(first[1].work));
  CHECK(std::get<HostWork>(first[1].work).seconds == Approx(2e-3));  // 8 samples over 4 workers
  testing::require_same_trace(trace, parse_trace_json(trace_to_json(trace), "loading.json").trace);
}
