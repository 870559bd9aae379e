// Writes a Trace as a trace-format document. nlohmann-json prints doubles
// with the shortest digits that round-trip (Grisu2), so reading the document
// back gives the same bits.
#include <fstream>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "workloads/trace_json.hpp"
#include "workloads/trace_json_names.hpp"

namespace simctl {
namespace {

using nlohmann::ordered_json;
namespace names = trace_names;

void add_work(ordered_json& j, const ComputeWork& w) {
  j["kind"] = "compute";
  j["kernel"] = names::name_of(names::kKernels, w.kind);
  j["dtype"] = names::name_of(names::kDTypes, w.dtype);
  j["flops"] = w.flops;
  j["bytes"] = w.memory_bytes;
  // The GEMM shape only where it is set: the compute model reads it for GEMMs.
  if (w.m != 0 || w.n != 0 || w.k != 0 || w.batch != 1) j["gemm"] = {w.m, w.n, w.k, w.batch};
  if (w.comm_sms != 0) j["comm_sms"] = w.comm_sms;
  if (w.sustained) j["sustained"] = true;
  if (w.measured_seconds > 0.0) j["measured_seconds"] = w.measured_seconds;
  // Which fused kernel, pass and mask price an attention op; absent where default.
  if (w.kind != ComputeKind::attention) return;
  if (w.attention_kernel != FusedAttention::flash2)
    j["attention_kernel"] = names::name_of(names::kFusedAttention, w.attention_kernel);
  if (w.backward) j["pass"] = names::name_of(names::kAttentionPass, w.backward);
  if (w.causal) j["mask"] = names::name_of(names::kAttentionMask, w.causal);
}

void add_work(ordered_json& j, const CollectiveCall& c) {
  j["kind"] = "collective";
  j["collective"] = names::name_of(names::kCollectives, c.op);
  j["group"] = c.group;
  j["bytes"] = c.bytes;
  j["dimension"] = names::name_of(names::kDimensions, c.dimension);
}

void add_work(ordered_json& j, const CopyCall& c) {
  j["kind"] = "copy";
  j["direction"] = names::name_of(names::kDirections, c.direction);
  j["bytes"] = c.bytes;
  if (c.pageable) j["host_memory"] = names::name_of(names::kHostMemory, c.pageable);
}

void add_work(ordered_json& j, const PeerTransfer& t) {
  j["kind"] = t.side == PeerTransfer::Side::send ? "send" : "recv";
  j["peer"] = t.peer;
  j["bytes"] = t.bytes;
  j["dimension"] = names::name_of(names::kDimensions, t.dimension);
}

void add_work(ordered_json& j, const HostWork& h) {
  j["kind"] = "host";
  j["seconds"] = h.seconds;
  if (h.memory_bytes > 0.0) j["memory_bytes"] = h.memory_bytes;  // absent for loader work: files stay as they were
}

ordered_json op_json(const Op& op) {
  ordered_json j = ordered_json::object();
  j["name"] = op.name;
  std::visit([&j](const auto& work) { add_work(j, work); }, op.work);
  j["stream"] = names::name_of(names::kStreams, op.stream);
  j["phase"] = names::name_of(names::kPhases, op.phase);
  j["deps"] = op.deps;
  if (!op.host_issued) j["host_issued"] = false;  // absent when true: files stay as they were
  return j;
}

ordered_json totals_json(const StepTotals& t) {
  return {{"model_flops", t.model_flops}, {"tokens", t.tokens}, {"samples", t.samples}, {"parameters", t.parameters}};
}

// One line per group and per op; the rest as nlohmann prints it.
void write_list(std::string& out, const std::vector<std::string>& lines, const char* indent) {
  for (std::size_t i = 0; i < lines.size(); ++i) out += indent + lines[i] + (i + 1 < lines.size() ? ",\n" : "\n");
}

void write_ranks(std::string& out, const Trace& trace) {
  out += "  \"ranks\": [\n";
  for (std::size_t r = 0; r < trace.ranks.size(); ++r) {
    out += "    {\"ops\": [\n";
    std::vector<std::string> ops;
    for (const Op& op : resolved_ops(trace, static_cast<std::uint32_t>(r))) ops.push_back(op_json(op).dump());
    write_list(out, ops, "      ");
    out += r + 1 < trace.ranks.size() ? "    ]},\n" : "    ]}\n";
  }
  out += "  ]\n";
}

}  // namespace

std::string trace_to_json(const Trace& trace, const std::string& description) {
  std::string out = "{\n";
  out += "  \"format\": " + ordered_json(kTraceFormatName).dump() + ",\n";
  out += "  \"version\": " + std::to_string(kTraceFormatVersion) + ",\n";
  out += "  \"description\": " + ordered_json(description).dump() + ",\n";
  out += "  \"compute_dtype\": " + ordered_json(names::name_of(names::kDTypes, trace.compute_dtype)).dump() + ",\n";
  out += "  \"totals\": " + totals_json(trace.totals).dump() + ",\n";
  out += "  \"gpu_of_rank\": " + ordered_json(trace.gpu_of_rank).dump() + ",\n";
  if (!trace.measured_on.empty()) out += "  \"measured_on\": " + ordered_json(trace.measured_on).dump() + ",\n";
  if (trace.host_issue_seconds_per_op > 0.0)
    out += "  \"host_issue_seconds_per_op\": " + ordered_json(trace.host_issue_seconds_per_op).dump() + ",\n";
  out += "  \"groups\": [\n";
  std::vector<std::string> groups;
  for (const auto& g : trace.groups) groups.push_back(ordered_json(g).dump());
  write_list(out, groups, "    ");
  out += "  ],\n";
  write_ranks(out, trace);
  return out + "}\n";
}

void write_trace_file(const std::string& path, const Trace& trace, const std::string& description) {
  std::ofstream file(path);
  file << trace_to_json(trace, description);
  if (!file) throw std::runtime_error("cannot write the trace to '" + path + "'");
}

}  // namespace simctl
