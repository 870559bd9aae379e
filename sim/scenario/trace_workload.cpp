#include "sim/scenario/trace_workload.hpp"

#include <filesystem>

#include "sim/config/config_schema.hpp"
#include "sim/config/path_check.hpp"
#include "workloads/trace_json.hpp"

namespace simctl {
namespace {

void check_fits(const ConfigNode& trace_node, const std::string& file, const Trace& trace, const System& system) {
  const std::size_t gpus = system.gpus().size();
  if (trace.ranks.size() > gpus) {
    trace_node.fail("the trace has " + std::to_string(trace.ranks.size()) + " ranks but system '" + system.name() +
                    "' has " + std::to_string(gpus) + " GPUs; use a system with at least " +
                    std::to_string(trace.ranks.size()) + " GPUs, or `simctl trace --ranks` to rescale it");
  }
  for (std::size_t r = 0; r < trace.gpu_of_rank.size(); ++r) {
    if (trace.gpu_of_rank[r] >= gpus) {
      throw ConfigError(SourceLocation{file, 0, 0}, "gpu_of_rank[" + std::to_string(r) + "]",
                        "GPU " + std::to_string(trace.gpu_of_rank[r]) + " does not exist; system '" + system.name() +
                            "' has GPUs 0.." + std::to_string(gpus - 1));
    }
  }
}

bool has_measured_kernels(const Trace& trace) {
  for (const auto& program : trace.programs) {
    for (const Op& op : program) {
      const auto* work = std::get_if<ComputeWork>(&op.work);
      if (work && work->measured_seconds > 0.0) return true;
    }
  }
  return false;
}

void check_measured_on(const std::string& file, const Trace& trace, const DeviceCatalogue& catalogue) {
  const bool measured = has_measured_kernels(trace);
  if (!measured || catalogue.find_gpu(trace.measured_on)) return;
  std::string models;
  for (const std::string& id : catalogue.gpu_ids()) models += (models.empty() ? "" : ", ") + id;
  const std::string what = trace.measured_on.empty()
                               ? std::string("the trace has measured kernels (measured_seconds) but no measured_on")
                               : "'" + trace.measured_on + "' is not a GPU model of the catalogue";
  throw ConfigError(SourceLocation{file, 0, 0}, "measured_on",
                    what + "; name the GPU they were timed on, one of " + models);
}

}  // namespace

bool is_trace_workload(const ConfigNode& workload_node) { return workload_node.is_map() && workload_node.has("trace"); }

TraceWorkload load_trace_workload(const ConfigNode& workload_node, const System& system,
                                  const DeviceCatalogue& catalogue) {
  expect_section(workload_node, "workload:trace");
  const ConfigNode trace_node = workload_node.child("trace");
  namespace fs = std::filesystem;
  const fs::path file = fs::path(trace_node.file()).parent_path() / trace_node.as_string();
  if (const std::string why = file_problem(file); !why.empty()) {
    trace_node.fail("trace file '" + file.string() + "' " + why);
  }
  TraceFile loaded = read_trace_file(file.string());
  check_fits(trace_node, file.string(), loaded.trace, system);
  check_measured_on(file.string(), loaded.trace, catalogue);
  std::string label = "trace " + file.filename().string() + ": ";
  label += loaded.description.empty() ? std::to_string(loaded.trace.ranks.size()) + " ranks" : loaded.description;
  return TraceWorkload{std::move(loaded.trace), std::move(label)};
}

}  // namespace simctl
