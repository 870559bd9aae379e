// The host side of a step: reading samples from a disk, preprocessing them
// on the data loader's CPU workers and copying them to the GPU. A slow disk
// must show in the step time and in the breakdown; prefetching hides
// loading that is faster than compute and nothing more. A step is simulated
// in the steady state (the loader prepared its first batch during the
// previous step) unless the input says `start: cold`.
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "models/network/link_kinds.hpp"
#include "plan_run.hpp"
#include "sim/report/step_report.hpp"
#include "tests/workloads/trace_files.hpp"
#include "workloads/trace_json.hpp"

using namespace simctl;

namespace {

// One H100 with a disk behind its host; GPT-2 small, 4 micro-batches of 8.
// Framework `ideal`: the loader's timing alone, without an eager host's issue
// of each kernel (a host that issues ahead of data it waits for would blur
// what these tests compare; docs/trace-format.md, "Host issue").
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
  framework: ideal
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
  // The same 2 MiB samples already in host memory: only their copies to the GPU.
  const StepReport cached = run("cached", kNvme, "{source: host_memory, bytes_per_sample: 2 MiB}");
  const StepReport nvme = run("nvme", kNvme, "{source: storage, bytes_per_sample: 2 MiB}");
  const StepReport nvme_cold = run("nvme_cold", kNvme, "{source: storage, bytes_per_sample: 2 MiB, start: cold}");
  const StepReport nvme_serial =
      run("nvme_serial", kNvme, "{source: storage, bytes_per_sample: 2 MiB, prefetch: false}");
  // NVMe reads of 8 x 2 MiB (~2.6 ms) hide behind each micro-batch's compute;
  // a cold first step shows the first, which nothing precedes.
  CHECK(nvme.step_time == cached.step_time);
  CHECK(ms(nvme_cold.step_time - nvme.step_time) > 1.0);
  CHECK(ms(nvme_cold.step_time - nvme.step_time) < 4.0);
  CHECK(nvme_serial.step_time > nvme_cold.step_time);
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
  const auto& ops = trace.ops(0);
  const auto named = [&](const std::string& name) -> const Op& {
    for (const Op& op : ops) {
      if (op.name == name) return op;
    }
    FAIL("no op " << name);
    return ops.front();
  };
  REQUIRE(std::holds_alternative<CopyCall>(named("mb1.input.read").work));
  REQUIRE(std::holds_alternative<HostWork>(named("mb1.input.preprocess").work));
  CHECK(std::get<HostWork>(named("mb1.input.preprocess").work).seconds == Approx(2e-3));  // 8 samples over 4 workers
  CHECK(named("mb1.input.preprocess").stream == Stream::loader);
  testing::require_same_trace(trace, parse_trace_json(trace_to_json(trace), "loading.json").trace);
}

namespace {

// The ops of rank 0 on `stream` whose names contain `part`.
int count_ops(const Trace& trace, Stream stream, const std::string& part) {
  int n = 0;
  for (const Op& op : trace.ops(0)) n += op.stream == stream && op.name.find(part) != std::string::npos ? 1 : 0;
  return n;
}

Trace trace_of(const std::string& name, const std::string& input) {
  const auto dir = std::filesystem::temp_directory_path() / ("simctl_input_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / (name + ".yaml");
  std::ofstream(file) << run_config(kNvme, input);
  return load_scenario(file.string()).trace;
}

}  // namespace

TEST_CASE("steady state: the loader prepares batches 1-3 and the next step's first, cold: batches 0-3",
          "[plans][input]") {
  const Trace steady = trace_of("steady_ops", "{preprocess_per_sample: 1 ms}");
  CHECK(count_ops(steady, Stream::loader, "input.preprocess") == 4);
  CHECK(count_ops(steady, Stream::loader, "mb0.input") == 0);  // prepared during the previous step
  CHECK(count_ops(steady, Stream::loader, "next_step.input.preprocess") == 1);
  CHECK(count_ops(steady, Stream::copy, "input_batch") == 4);  // every batch's copy is in the step
  // Cold: today's first step, every batch loaded on the copy stream, none for the next step.
  const Trace cold = trace_of("cold_ops", "{preprocess_per_sample: 1 ms, start: cold}");
  CHECK(count_ops(cold, Stream::loader, "input") == 0);
  CHECK(count_ops(cold, Stream::copy, "input.preprocess") == 4);
  CHECK(count_ops(cold, Stream::copy, "next_step") == 0);
  CHECK(cold.ops(0).front().name == "mb0.input.preprocess");
}

TEST_CASE("a loader faster than the GPU costs nothing in the steady state, its first batch when cold",
          "[plans][input]") {
  const StepReport cached = run("cached", kNvme, "{source: host_memory}");
  // 8 samples over 4 workers at 2 ms each: 4 ms of preprocessing per micro-batch.
  const StepReport steady = run("fast_steady", kNvme, "{preprocess_per_sample: 2 ms, workers: 4}");
  const StepReport cold = run("fast_cold", kNvme, "{preprocess_per_sample: 2 ms, workers: 4, start: cold}");
  INFO("cached " << ms(cached.step_time) << " ms, steady " << ms(steady.step_time) << " ms, cold " << ms(cold.step_time)
                 << " ms");
  REQUIRE(ms(cached.mean.compute()) / 4 > 4.0);  // each micro-batch computes longer than it loads
  // Only the four micro-batches' copies of 8 x 16 KiB token ids remain: microseconds.
  CHECK(ms(steady.mean[Category::data_loading]) < 0.1);
  CHECK(steady.step_time == cached.step_time);
  // The cold first step waits 4 ms for its first batch, then hides the rest.
  CHECK(ms(cold.mean[Category::data_loading]) == Approx(4.0 + ms(cached.mean[Category::data_loading])).epsilon(0.01));
  CHECK(ms(cold.step_time - cached.step_time) == Approx(4.0).epsilon(0.01));
}

TEST_CASE("a loader slower than the GPU bounds the steady step at its own per-step time", "[plans][input]") {
  // One worker, 20 ms a sample: 160 ms per micro-batch of 8, 640 ms for the
  // step's four (three of this step and the next step's first), against
  // ~10 ms of compute per micro-batch.
  const StepReport slow = run("slow_steady", kNvme, "{preprocess_per_sample: 20 ms}");
  const double loader_ms = 4 * 8 * 20.0;
  INFO("step " << ms(slow.step_time) << " ms, loader " << loader_ms << " ms per step");
  CHECK(ms(slow.step_time) >= loader_ms);
  CHECK(ms(slow.step_time) <= 1.01 * loader_ms);  // 1 %: the last batch's copy and compute are hidden
  CHECK(ms(slow.mean[Category::data_loading]) > 0.9 * (ms(slow.step_time) - ms(slow.mean.compute())));
  CHECK_THAT(slow.bottleneck, Catch::StartsWith("input-bound"));
}

TEST_CASE("pageable host memory runs each copy at the CPU's staging memcpy, a bad word is refused", "[plans][input]") {
  const StepReport pinned = run("pinned", kNvme, "{bytes_per_sample: 2 MiB, host_memory: pinned}");
  const StepReport pageable = run("pageable", kNvme, "{bytes_per_sample: 2 MiB, host_memory: pageable}");
  // 4 copies of 16 MiB. Pinned, each is the DMA over PCIe Gen5; pageable,
  // the DMA overlaps the memcpy through 2 MiB staging chunks, so each runs
  // at one Sapphire Rapids core's memcpy (12 GB/s, cpus.yaml): 1.40 ms
  // against the DMA's 0.33 ms. Back to back (the memcpy, then the DMA) it
  // had been the whole memcpy more per copy.
  const double memcpy_ms = 16 * 1048576.0 / 12e9 * 1e3;
  const double dma_ms =
      16 * 1048576.0 / LinkKindTable::load().defaults(LinkKind::pcie_gen5_x16).effective().bytes_per_s * 1e3;
  const double extra_ms = 4 * (memcpy_ms - dma_ms);
  INFO("pageable adds " << ms(pageable.step_time - pinned.step_time) << " ms, expected " << extra_ms);
  CHECK(ms(pageable.step_time - pinned.step_time) == Approx(extra_ms).epsilon(0.03));
  CHECK(ms(pageable.step_time - pinned.step_time) < 0.93 * 4 * memcpy_ms);  // not memcpy on top of the DMA
  CHECK_THROWS_WITH(run("bad", kNvme, "{host_memory: locked}"),
                    Catch::Contains("host_memory") && Catch::Contains("pageable") && Catch::Contains(".yaml:"));
}
