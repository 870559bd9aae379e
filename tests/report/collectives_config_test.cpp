// A run config's `collectives:` section is checked when it loads: a pinned
// algorithm that cannot run on a group the job uses, SHARP without a fabric
// to reduce in, or an unknown name stops simctl with the file, line and
// field, and what would be valid there.
#include <algorithm>
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "models/network/collective_choice.hpp"
#include "sim/config/config_error.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/exec/executor.hpp"
#include "sim/scenario/scenario.hpp"
#include "tests/report/report_outputs.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace {

// GPT 1.3B under DDP over `gpus` GPUs of `system` (a shipped system file),
// with 6 MiB buckets (mid-sized buffers, where the tuner weighs SHARP
// best), then the `collectives:` section on line 3 (its first field on line 4).
std::filesystem::path write_config(const TempDir& dir, const std::string& system, int gpus,
                                   const std::string& collectives) {
  const auto path = dir.path() / "run.yaml";
  std::ofstream out(path);
  out << "system: " << source_path("configs/systems/" + system) << "\n"
      << "workload: {model: gpt-1.3b, parallel: {data: " << gpus << "}, strategy: ddp, micro_batch: 8, "
      << "global_batch: " << 8 * gpus << ", precision: bf16, optimizer: adam, activation_recompute: none, "
      << "ddp: {bucket_size: 6 MiB, first_bucket_size: 1 MiB, overlap: true, grad_dtype: bf16}}\n"
      << "collectives:\n"
      << collectives;
  return path;
}

std::string load_error(const std::string& name, const std::string& system, int gpus, const std::string& collectives) {
  const TempDir dir(name);
  const auto path = write_config(dir, system, gpus, collectives);
  try {
    load_scenario(path.string());
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "(loaded without an error)";
}

const std::string kNdr = "dgx_h100_x4_ndr.yaml";
const std::string kHdr = "dgx_a100_x5_hdr.yaml";

}  // namespace

TEST_CASE("all_reduce: sharp without sharp: true names the line and field and says to add it",
          "[report][collectives][config]") {
  const std::string error = load_error("sharp_off", kNdr, 32, "  all_reduce: sharp\n");
  CHECK_THAT(error, Catch::Contains("run.yaml:4:") && Catch::Contains("field 'collectives.all_reduce'") &&
                        Catch::Contains("DP all_reduce over 32 GPUs in 4 nodes") &&
                        Catch::Contains("add `sharp: true`"));
  CHECK(load_error("sharp_on", kNdr, 32, "  all_reduce: sharp\n  sharp: true\n") == "(loaded without an error)");
}

TEST_CASE("an algorithm that cannot run on the job's group is refused with the ones that can",
          "[report][collectives][config]") {
  // NVLS reduces inside one NVSwitch; this DP group spans four nodes.
  const std::string nvls = load_error("nvls", kNdr, 32, "  all_reduce: nvls\n");
  CHECK_THAT(nvls, Catch::Contains("run.yaml:4:") && Catch::Contains("nvls cannot run") &&
                       Catch::Contains("valid for it: auto, ring, tree, hierarchical"));
  CHECK_THAT(nvls, !Catch::Contains("nvls,") && !Catch::Contains("sharp"));
  // Hierarchical needs several nodes; one DGX H100 is one.
  const std::string one_node = load_error("hierarchical", "dgx_h100.yaml", 8, "  all_reduce: hierarchical\n");
  CHECK_THAT(one_node, Catch::Contains("hierarchical cannot run the DP all_reduce over 8 GPUs in 1 node") &&
                           Catch::Contains("nvls"));
}

TEST_CASE("an unknown op or algorithm under collectives: lists the valid ones", "[report][collectives][config]") {
  CHECK_THAT(load_error("op", kNdr, 32, "  allreduce: ring\n"),
             Catch::Contains("run.yaml:4:") && Catch::Contains("all_reduce") && Catch::Contains("all_to_all") &&
                 Catch::Contains("sharp"));
  CHECK_THAT(load_error("algorithm", kNdr, 32, "  all_reduce: spiral\n"),
             Catch::Contains("run.yaml:4:") && Catch::Contains("'spiral'") && Catch::Contains("halving_doubling"));
  CHECK_THAT(load_error("flag", kNdr, 32, "  sharp: often\n"),
             Catch::Contains("run.yaml:4:") && Catch::Contains("true or false"));
}

TEST_CASE("sharp: true on a machine without network switches is refused", "[report][collectives][config]") {
  CHECK_THAT(load_error("no_fabric", "dgx_h100.yaml", 8, "  sharp: true\n"),
             Catch::Contains("run.yaml:4:") && Catch::Contains("field 'collectives.sharp'") &&
                 Catch::Contains("no network switch"));
}

TEST_CASE("ctas: outside 1 to 64 is refused on its line", "[report][collectives][config]") {
  CHECK_THAT(load_error("ctas_zero", kNdr, 32, "  ctas: 0\n"),
             Catch::Contains("run.yaml:4:") && Catch::Contains("field 'collectives.ctas'"));
  CHECK_THAT(load_error("ctas_many", kNdr, 32, "  ctas: 65\n"),
             Catch::Contains("run.yaml:4:") && Catch::Contains("at most 64 CTAs; give 1 to 64"));
  CHECK_THAT(load_error("ctas_word", kNdr, 32, "  ctas: many\n"), Catch::Contains("run.yaml:4:"));
  CHECK(load_error("ctas_ok", kNdr, 32, "  ctas: 24\n") == "(loaded without an error)");
}

TEST_CASE("ctas: reaches the replay: fewer CTAs slow a data-parallel ring across nodes", "[report][collectives]") {
  const TempDir dir("ctas_step");
  // The all-reduces' own time, summed over calls (ms).
  const auto all_reduce_ms = [&](const std::string& collectives) {
    const Scenario s = load_scenario(write_config(dir, kNdr, 32, "  all_reduce: ring\n" + collectives).string());
    Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
    double ms = 0.0;
    for (const CollectiveUsage& u : executor.run().collectives) ms += ps_to_seconds(u.time) * 1e3;
    return ms;
  };
  const double default_ctas = all_reduce_ms("");
  CHECK(all_reduce_ms("  ctas: 2\n") > 2 * default_ctas);
  CHECK(all_reduce_ms("  ctas: 16\n") == Approx(default_ctas));
}

// Which algorithms a run's collectives ran with.
std::set<CollectiveAlgorithm> algorithms_run(const std::string& name, const std::string& system,
                                             const std::string& collectives) {
  const TempDir dir(name);
  const Scenario s = load_scenario(write_config(dir, system, 32, collectives).string());
  Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  std::set<CollectiveAlgorithm> out;
  for (const CollectiveUsage& u : executor.run().collectives) out.insert(u.kind.algorithm);
  return out;
}

// On A100 nodes: on H100 nodes the tuner prefers NVLSTree, since the
// model's SHARP reduces inside each node with ring phases where NCCL's
// NVLS+SHARP would use the NVSwitch (docs/network.md, limits).
TEST_CASE("sharp: true lets the tuner run mid-sized all-reduces across nodes in the switches, off, it never does",
          "[report][collectives]") {
  const auto with_sharp = algorithms_run("sharp_tuned", kHdr, "  sharp: true\n");
  CHECK(with_sharp.count(CollectiveAlgorithm::sharp) == 1);
  const auto without = algorithms_run("sharp_default", kHdr, "  sharp: false\n");
  CHECK_FALSE(without.empty());
  CHECK(without.count(CollectiveAlgorithm::sharp) == 0);
  CHECK(algorithms_run("sharp_h100", kNdr, "  sharp: true\n").count(CollectiveAlgorithm::nvls_tree) == 1);
}

// The schema documents each op's valid algorithms (docs/config.md is built
// from it); they must be exactly the ones the parser lets that op run.
TEST_CASE("the schema's collectives section lists, per op, the algorithms that run it",
          "[report][collectives][config]") {
  const SchemaSection& section = config_schema().section("collectives");
  for (std::size_t i = 0; i < kCollectiveOpCount; ++i) {
    const auto op = static_cast<CollectiveOp>(i);
    const auto field = std::find_if(section.fields.begin(), section.fields.end(),
                                    [&](const SchemaField& f) { return f.name == to_string(op); });
    REQUIRE(field != section.fields.end());
    std::set<std::string> runs;
    for (CollectiveAlgorithm a : kAllCollectiveAlgorithms) {
      if (algorithm_runs_op(a, op)) runs.emplace(to_string(a));
    }
    CHECK(std::set<std::string>(field->choices.begin(), field->choices.end()) == runs);
  }
}
