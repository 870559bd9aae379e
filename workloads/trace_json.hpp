#pragma once
// The trace file format (docs/trace-format.md): a Trace as JSON, so a
// generated workload can be saved, edited by hand and replayed. Writing then
// reading gives back the same trace exactly: doubles are printed with the
// shortest digits that parse back to the same bits.
#include <string>

#include "workloads/trace.hpp"

namespace simctl {

inline constexpr const char* kTraceFormatName = "simctl-trace";
inline constexpr int kTraceFormatVersion = 1;

// The document, one op per line so that diffs and hand edits stay readable.
// `description` is free text shown in reports when the trace is replayed.
std::string trace_to_json(const Trace& trace, const std::string& description = {});
void write_trace_file(const std::string& path, const Trace& trace, const std::string& description = {});

struct TraceFile {
  Trace trace;
  std::string description;
};

// Parses and validates a document. Any problem is a ConfigError naming
// `file_label` (with line and column for malformed JSON), the field as a path
// such as `ranks[3].ops[17].deps[0]`, and what would be valid.
TraceFile parse_trace_json(const std::string& text, const std::string& file_label);
TraceFile read_trace_file(const std::string& path);

}  // namespace simctl
