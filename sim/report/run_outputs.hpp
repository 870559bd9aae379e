#pragma once
// The detailed outputs of a run, beyond the summary: CSV tables and a
// Chrome/Perfetto trace. They need every op's timing, so they take the trace
// and its execution result alongside the report.
#include <filesystem>
#include <nlohmann/json.hpp>

#include "sim/exec/execution_result.hpp"
#include "sim/report/step_report.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"

namespace simctl {

struct RunView {
  const Trace& trace;
  const ExecutionResult& result;
  const System& system;
  const StepReport& report;
};

// Writes ops.csv, links.csv, ranks.csv, tiers.csv and critical_path.csv into
// `dir` (created if missing). Columns are documented in docs/output.md.
// Throws std::runtime_error when a file cannot be written.
void write_csv_tables(const RunView& run, const std::filesystem::path& dir);

// Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing):
// one process per rank with a thread per stream and one for its host side,
// and one process of counters, one per busy link. Layout in docs/output.md.
nlohmann::json render_trace(const RunView& run);

}  // namespace simctl
