#pragma once
// The detailed outputs of a run, beyond the summary: CSV tables and a
// Chrome/Perfetto trace. They need every op's timing, so they take the trace
// and its execution result alongside the report.
#include <filesystem>

#include "sim/exec/execution_result.hpp"
#include "sim/report/output_selection.hpp"
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

struct CsvTarget {
  std::filesystem::path dir;
  OutputSelection selection;  // which ops ops.csv keeps; the other tables are whole
  bool gzip = false;          // NAME.csv.gz instead of NAME.csv
};

// Writes ops.csv, links.csv, ranks.csv, tiers.csv and critical_path.csv into
// the target's folder (created if missing), streamed row by row. Columns are
// documented in docs/output.md. Throws std::runtime_error when a file cannot
// be written.
void write_csv_tables(const RunView& run, const CsvTarget& target);

// Chrome trace-event JSON (opens in ui.perfetto.dev and chrome://tracing),
// streamed to `path` one event per line, gzipped when it ends in ".gz": one
// process per selected rank with a thread per stream and one for its host
// side, and one process of counters, one per busy link. Layout in
// docs/output.md.
void write_trace(const RunView& run, const OutputSelection& selection, const std::filesystem::path& path);

}  // namespace simctl
