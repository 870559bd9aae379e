#pragma once
// A scenario is what one config file names: a system and a workload, each
// inline or in a file of its own (so one system serves many workloads), plus
// the catalogues they are checked against. Loading it validates everything a
// run needs, so `simctl check` and `simctl run` fail on exactly the same input.
#include <memory>
#include <string>
#include <vector>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective.hpp"
#include "models/network/collective_overrides.hpp"
#include "models/network/link_kinds.hpp"
#include "sim/config/config_overrides.hpp"
#include "sim/report/costs.hpp"
#include "sim/report/memory.hpp"
#include "sim/report/step_report.hpp"
#include "sim/topology/system.hpp"
#include "workloads/memory_estimate.hpp"
#include "workloads/trace.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

struct Scenario {
  DeviceCatalogue catalogue;
  LinkKindTable link_kinds;
  CollectiveTuning tuning;
  System system;
  WorkloadSpec workload;
  Trace trace;
  RunLabels labels;
  std::vector<StageMemory> memory;                   // per stage (memory_estimate.hpp)
  std::vector<std::vector<MemoryItem>> rank_memory;  // per rank, for ReportInputs::memory
  CostSpec costs;                                    // optional pricing/power sections (sim/report/costs.hpp)
  bool replays_trace_file = false;                   // `workload: {trace: FILE}`: no plan, no memory estimate
  CollectiveOverrides collectives;                   // `collectives:`: pinned algorithms, SHARP (Executor)
  TimePs fold_tolerance = 0;                         // `replay.fold_tolerance` (Executor::set_fold_tolerance)
};

// The catalogues every scenario is checked against. Parsing them is most of
// a small scenario's load time, so a plan search loads them once and hands
// them to every plan's load (ScenarioOptions::catalogues).
struct Catalogues {
  DeviceCatalogue devices;
  LinkKindTable link_kinds;
  CollectiveTuning tuning;
  ModelCatalogue models;
  static Catalogues load();  // the data root's (as load_scenario loads them)
};

struct ScenarioOptions {
  // A plan whose estimated memory exceeds a GPU's capacity is a ConfigError
  // (naming the stage and the numbers) unless this is set, as `simctl memory`
  // does to show the breakdown.
  bool allow_out_of_memory = false;
  // Loading for a memory estimate or a check (`simctl memory`, `simctl
  // check`): an inference workload then needs no prompt and output lengths
  // and may exceed the GPU's memory. Otherwise it must say what it serves
  // (sim/scenario/inference_run.hpp replays it) and fit.
  bool memory_only = false;
  // Fields written over the config's own (a sweep point, a searched plan);
  // they reach into the system and workload files the config names.
  ConfigOverrides overrides;
  // With allow_out_of_memory: a plan over a GPU's capacity loads with its
  // memory estimate but without a trace (empty), since nothing will replay
  // it; a plan search prunes such plans and skips the trace's cost.
  bool skip_trace_when_out_of_memory = false;
  // Loaded once for many scenarios; null: load_scenario loads its own.
  const Catalogues* catalogues = nullptr;
  // The config's system as load_scenario builds it (stragglers applied),
  // built once for many scenarios of one config: a plan search's plans
  // override only the workload. Used only when no override reaches into
  // `system` or `stragglers`; null: load_scenario builds its own.
  std::shared_ptr<const System> system = nullptr;
};

// Throws ConfigError (file:line:col, field, what is valid) on any bad input.
Scenario load_scenario(const std::string& config_path, ScenarioOptions options = {});

// Capacity of the GPU that `rank` runs on, in bytes.
double rank_gpu_capacity_bytes(const Scenario& s, std::uint32_t rank);

// The first rank whose estimate exceeds its GPU's memory, if any.
std::optional<std::uint32_t> first_out_of_memory_rank(const Scenario& s);

// "stage 2 needs 93.4 GiB (weights 2.1, gradients 2.1, optimizer_states 12.6,
// activations 70.1, temporary 6.5) but its GPU has 80.0 GiB"
std::string describe_out_of_memory(const Scenario& s, std::uint32_t rank);

// Host memory one rank may use: the capacity of the DRAM nearest its GPU,
// split evenly over the GPUs whose nearest DRAM it is; 0 when the system
// gives no capacity (nothing to check against).
double rank_host_capacity_bytes(const Scenario& s, std::uint32_t rank);

// What offload keeps in `rank`'s host memory (memory_estimate.hpp), in bytes.
double rank_host_bytes(const Scenario& s, std::uint32_t rank);

}  // namespace simctl
