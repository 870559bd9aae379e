#include "sim/scenario/scenario.hpp"

#include <cstdio>
#include <filesystem>

#include "sim/config/config_node.hpp"
#include "sim/topology/system_config.hpp"
#include "workloads/ddp_trace.hpp"

namespace simctl {
namespace {

// A section is either an inline mapping or the path of a file (relative to
// the config that names it) whose top level holds the same key.
ConfigNode section(const ConfigNode& root, const std::string& key) {
  const ConfigNode value = root.child(key);
  if (value.is_map()) return value;
  if (!value.is_scalar()) value.fail("expected an inline mapping or the path of a YAML file");
  namespace fs = std::filesystem;
  const fs::path base = fs::path(root.file()).parent_path();
  const fs::path file = base / value.as_string();
  if (!fs::exists(file)) value.fail("file '" + file.string() + "' does not exist");
  const ConfigNode loaded = ConfigNode::load_file(file.string());
  if (!loaded.has(key)) loaded.fail("expected a top-level '" + key + ":' mapping in this file");
  return loaded.child(key);
}

// The GPUs a data-parallel job asks for must exist; fewer is fine (the job
// runs on the first ones), more is an error that names the field.
int checked_world_size(const ConfigNode& workload_node, const WorkloadSpec& workload, const System& system) {
  const auto gpus = static_cast<std::int64_t>(system.gpus().size());
  if (workload.parallel.data > gpus) {
    const ConfigNode parallel = workload_node.child("parallel");
    parallel.child("data").fail("asks for " + std::to_string(workload.parallel.data) +
                                " data-parallel ranks but system '" + system.name() + "' has " + std::to_string(gpus) +
                                " GPUs; use at most " + std::to_string(gpus));
  }
  return static_cast<int>(workload.parallel.data);
}

std::string describe_system(const System& system) {
  std::string model = system.gpus().empty() ? "no GPUs" : system.part(system.gpus().front()).model;
  return system.name() + ": " + std::to_string(system.gpus().size()) + " x " + model + " in " +
         std::to_string(system.num_nodes()) + (system.num_nodes() == 1 ? " node" : " nodes");
}

std::string describe_workload(const WorkloadSpec& w, int ranks) {
  char params[32];
  std::snprintf(params, sizeof params, "%.2f B params", static_cast<double>(w.model.parameter_count()) / 1e9);
  return w.model.name + " (" + params + "), DDP over " + std::to_string(ranks) + " GPUs, " +
         std::string(to_string(w.precision)) + ", micro-batch " + std::to_string(w.micro_batch) + ", global batch " +
         std::to_string(w.global_batch) + " x " + std::to_string(w.model.seq_len) + " tokens";
}

}  // namespace

Scenario load_scenario(const std::string& config_path) {
  const ConfigNode root = ConfigNode::load_file(config_path);
  root.expect_keys({"name", "description", "system", "workload"});
  Scenario s{DeviceCatalogue::load(),
             LinkKindTable::load(),
             CollectiveTuning::load(),
             System{},
             WorkloadSpec{},
             Trace{},
             RunLabels{}};
  s.system = load_system(section(root, "system"), s.catalogue, s.link_kinds);
  const ConfigNode workload_node = section(root, "workload");
  s.workload = parse_workload(workload_node);
  const int ranks = checked_world_size(workload_node, s.workload, s.system);
  s.trace = build_ddp_trace(s.workload, ranks);
  s.labels = RunLabels{describe_system(s.system), describe_workload(s.workload, ranks)};
  return s;
}

}  // namespace simctl
