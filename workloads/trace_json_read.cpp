// Reads a trace-format document: JSON syntax, then the shape and values of
// every field (trace_check.cpp then checks how ops refer to each other).
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <fstream>
#include <initializer_list>
#include <limits>
#include <nlohmann/json.hpp>
#include <sstream>

#include "sim/config/config_error.hpp"
#include "sim/config/config_schema.hpp"
#include "sim/config/input_limits.hpp"
#include "workloads/trace_check.hpp"
#include "workloads/trace_json.hpp"
#include "workloads/trace_json_names.hpp"

namespace simctl {
namespace {

using nlohmann::json;
namespace names = trace_names;
// More SMs than any GPU has (an H100 has 132, a B200 148).
constexpr std::int64_t kMaxCommSms = 1024;

std::string describe(const json& j) {
  const std::string text = j.dump();
  return text.size() <= 40 ? text : text.substr(0, 37) + "...";
}

// Field readers that blame a path such as ranks[3].ops[17].bytes.
class FieldReader {
 public:
  explicit FieldReader(std::string file) : file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& path, const std::string& problem) const {
    throw ConfigError(SourceLocation{file_, 0, 0}, path, problem);
  }

  void expect_object(const json& j, const std::string& path) const {
    if (!j.is_object()) fail(path, "expected an object {...}, got " + describe(j));
  }
  void expect_array(const json& j, const std::string& path) const {
    if (!j.is_array()) fail(path, "expected an array [...], got " + describe(j));
  }

  void expect_keys(const json& j, const std::string& path, const std::vector<std::string>& allowed) const {
    for (const auto& [key, value] : j.items()) {
      bool known = false;
      for (const auto& a : allowed) known = known || a == key;
      if (known) continue;
      std::string valid;
      for (const auto& a : allowed) valid += std::string(valid.empty() ? "" : ", ") + std::string(a);
      fail(join(path, key), "unknown field; valid fields here are " + valid);
    }
  }

  const json& required(const json& j, const std::string& path, const char* key) const {
    const auto it = j.find(key);
    if (it == j.end()) fail(join(path, key), "missing; this field is required");
    return *it;
  }

  std::string string(const json& j, const std::string& path) const {
    if (!j.is_string()) fail(path, "expected a string, got " + describe(j));
    return j.get<std::string>();
  }

  double non_negative(const json& j, const std::string& path) const {
    if (!j.is_number()) fail(path, "expected a number, got " + describe(j));
    const double v = j.get<double>();
    if (!std::isfinite(v) || v < 0.0) fail(path, describe(j) + " is not allowed; must be a finite number >= 0");
    return v;
  }

  std::int64_t integer(const json& j, const std::string& path) const {
    if (!j.is_number_integer()) fail(path, "expected a whole number, got " + describe(j));
    if (j.is_number_unsigned() && j.get<std::uint64_t>() > std::uint64_t(std::numeric_limits<std::int64_t>::max()))
      fail(path, describe(j) + " is too large");
    return j.get<std::int64_t>();
  }

  std::uint32_t index(const json& j, const std::string& path) const {
    const std::int64_t v = integer(j, path);
    if (v < 0 || v > std::numeric_limits<std::uint32_t>::max())
      fail(path, describe(j) + " is not a valid index; must be a whole number >= 0");
    return static_cast<std::uint32_t>(v);
  }

  std::vector<std::uint32_t> indices(const json& j, const std::string& path) const {
    expect_array(j, path);
    std::vector<std::uint32_t> out;
    for (std::size_t i = 0; i < j.size(); ++i) out.push_back(index(j[i], item(path, i)));
    return out;
  }

  template <typename E, std::size_t N>
  E choice(const json& j, const std::string& path, const names::Table<E, N>& table) const {
    const std::string text = string(j, path);
    if (auto v = names::value_of(table, text)) return *v;
    fail(path, "'" + text + "' is not valid; use " + names::choices(table));
  }

  template <typename E, std::size_t N>
  E choice_or(const json& j, const std::string& path, const char* key, const names::Table<E, N>& table,
              E fallback) const {
    return j.contains(key) ? choice(j[key], join(path, key), table) : fallback;
  }

  static std::string join(const std::string& path, std::string_view key) {
    return path.empty() ? std::string(key) : path + "." + std::string(key);
  }
  static std::string item(const std::string& path, std::size_t i) { return path + "[" + std::to_string(i) + "]"; }

 private:
  std::string file_;
};

// Line and column (1-based) of a byte offset, for parse errors.
SourceLocation location_of_byte(const std::string& file, const std::string& text, std::size_t byte) {
  SourceLocation at{file, 1, 1};
  for (std::size_t i = 0; i < byte && i < text.size(); ++i) {
    if (text[i] == '\n') {
      ++at.line;
      at.column = 1;
    } else {
      ++at.column;
    }
  }
  return at;
}

json parse_json(const std::string& text, const std::string& file) {
  try {
    return json::parse(text);
  } catch (const json::parse_error& e) {
    // nlohmann's byte is one past the character it stopped at.
    const std::size_t byte = e.byte > 0 ? e.byte - 1 : 0;
    std::string message = e.what();
    // Drop nlohmann's "[json.exception.parse_error.101] parse error at line L, column C: ": the location leads.
    if (const auto end = message.find(": "); end != std::string::npos) message = message.substr(end + 2);
    throw ConfigError(location_of_byte(file, text, byte), "",
                      "not valid JSON (byte " + std::to_string(byte) + "): " + message);
  } catch (const json::out_of_range& e) {
    // A number too large for a double ("number overflow parsing '1e999'"):
    // nlohmann gives no byte, so find the literal it quotes.
    const std::string message = e.what();
    const auto open = message.find('\'');
    const auto close = open == std::string::npos ? open : message.find('\'', open + 1);
    const std::string literal = close == std::string::npos ? "" : message.substr(open + 1, close - open - 1);
    const std::size_t byte = literal.empty() ? 0 : std::min(text.find(literal), text.size());
    throw ConfigError(location_of_byte(file, text, byte), "",
                      "a number out of range: '" + literal + "' does not fit a double (at most about 1.8e308)");
  }
}

Stream default_stream(const std::string& kind) {
  if (kind == "compute") return Stream::compute;
  return kind == "copy" || kind == "host" ? Stream::copy : Stream::communication;
}

// Reads the document's fields into a Trace; every problem names its path.
class TraceReader : public FieldReader {
 public:
  using FieldReader::FieldReader;

  TraceFile read(const json& doc) const {
    expect_object(doc, "");
    expect_keys(doc, "", schema_keys("trace_file"));
    check_header(doc);
    TraceFile out;
    if (doc.contains("description")) out.description = string(doc["description"], "description");
    Trace& t = out.trace;
    t.compute_dtype = choice(required(doc, "", "compute_dtype"), "compute_dtype", names::kDTypes);
    t.totals = totals(required(doc, "", "totals"));
    if (doc.contains("gpu_of_rank")) t.gpu_of_rank = indices(doc["gpu_of_rank"], "gpu_of_rank");
    if (doc.contains("measured_on")) t.measured_on = string(doc["measured_on"], "measured_on");
    if (doc.contains("host_issue_seconds_per_op")) t.host_issue_seconds_per_op = host_issue(doc);
    const json& groups = required(doc, "", "groups");
    expect_array(groups, "groups");
    for (std::size_t g = 0; g < groups.size(); ++g) t.groups.push_back(indices(groups[g], item("groups", g)));
    const json& ranks = required(doc, "", "ranks");
    expect_array(ranks, "ranks");
    for (std::size_t r = 0; r < ranks.size(); ++r) t.add_rank(rank_ops(ranks[r], item("ranks", r), t));
    return out;
  }

 private:
  void check_header(const json& doc) const {
    const json& format = required(doc, "", "format");
    if (format != kTraceFormatName)
      fail("format", describe(format) + " is not a simctl trace; expected \"" + kTraceFormatName + "\"");
    const std::int64_t version = integer(required(doc, "", "version"), "version");
    if (version != kTraceFormatVersion)
      fail("version", "trace format version " + std::to_string(version) +
                          " is not supported; this simctl reads version " + std::to_string(kTraceFormatVersion) +
                          " (docs/trace-format.md)");
  }

  // A second per op is beyond any host; more would overflow a long trace's clock.
  double host_issue(const json& doc) const {
    const double seconds = non_negative(doc["host_issue_seconds_per_op"], "host_issue_seconds_per_op");
    if (seconds > 1.0)
      fail("host_issue_seconds_per_op",
           describe(doc["host_issue_seconds_per_op"]) + " is not allowed; at most 1 (a second per op)");
    return seconds;
  }

  StepTotals totals(const json& j) const {
    expect_object(j, "totals");
    expect_keys(j, "totals", schema_keys("trace_file.totals"));
    auto number = [&](const char* key) { return non_negative(required(j, "totals", key), join("totals", key)); };
    return StepTotals{number("model_flops"), number("tokens"), number("samples"), number("parameters")};
  }

  std::vector<Op> rank_ops(const json& j, const std::string& path, const Trace& t) const {
    expect_object(j, path);
    expect_keys(j, path, schema_keys("trace_file.ranks[]"));
    const json& ops = required(j, path, "ops");
    const std::string ops_path = join(path, "ops");
    expect_array(ops, ops_path);
    std::vector<Op> out;
    for (std::size_t i = 0; i < ops.size(); ++i) out.push_back(op(ops[i], item(ops_path, i), t));
    return out;
  }

  CopyCall copy(const json& j, const std::string& path) const {
    return CopyCall{choice(required(j, path, "direction"), join(path, "direction"), names::kDirections), bytes(j, path),
                    choice_or(j, path, "host_memory", names::kHostMemory, false)};
  }

  Op op(const json& j, const std::string& path, const Trace& t) const {
    expect_object(j, path);
    const std::string kind = string(required(j, path, "kind"), join(path, "kind"));
    Op out;
    if (kind == "compute") {
      expect_keys(j, path, schema_keys("trace_file.ranks[].ops[]:compute"));
      out.work = compute(j, path, t.compute_dtype);
    } else if (kind == "collective") {
      expect_keys(j, path, schema_keys("trace_file.ranks[].ops[]:collective"));
      out.work = collective(j, path);
    } else if (kind == "copy") {
      expect_keys(j, path, schema_keys("trace_file.ranks[].ops[]:copy"));
      out.work = copy(j, path);
    } else if (kind == "host") {
      expect_keys(j, path, schema_keys("trace_file.ranks[].ops[]:host"));
      HostWork host{non_negative(required(j, path, "seconds"), join(path, "seconds")), 0.0};
      if (j.contains("memory_bytes")) host.memory_bytes = non_negative(j["memory_bytes"], join(path, "memory_bytes"));
      out.work = host;
    } else if (kind == "send" || kind == "recv") {
      expect_keys(j, path, schema_keys("trace_file.ranks[].ops[]:send_recv"));
      out.work = peer_transfer(j, path, kind == "send");
    } else {
      fail(join(path, "kind"), "'" + kind + "' is not an op kind; use compute, copy, host, collective, send or recv");
    }
    if (j.contains("name")) out.name = string(j["name"], join(path, "name"));
    out.stream = choice_or(j, path, "stream", names::kStreams, default_stream(kind));
    out.phase = choice_or(j, path, "phase", names::kPhases, OpPhase::other);
    if (j.contains("deps")) out.deps = indices(j["deps"], join(path, "deps"));
    if (j.contains("host_issued")) out.host_issued = boolean(j["host_issued"], join(path, "host_issued"));
    return out;
  }

  bool boolean(const json& j, const std::string& path) const {
    if (!j.is_boolean()) fail(path, describe(j) + " is not allowed; must be true or false");
    return j.get<bool>();
  }

  double bytes(const json& j, const std::string& path) const {
    return non_negative(required(j, path, "bytes"), join(path, "bytes"));
  }

  ComputeWork compute(const json& j, const std::string& path, DType fallback) const {
    ComputeWork w;
    w.kind = choice(required(j, path, "kernel"), join(path, "kernel"), names::kKernels);
    w.dtype = choice_or(j, path, "dtype", names::kDTypes, fallback);
    w.flops = non_negative(required(j, path, "flops"), join(path, "flops"));
    w.memory_bytes = bytes(j, path);
    if (j.contains("gemm")) gemm_shape(j["gemm"], join(path, "gemm"), w);
    w.attention_kernel = choice_or(j, path, "attention_kernel", names::kFusedAttention, FusedAttention::flash2);
    w.backward = choice_or(j, path, "pass", names::kAttentionPass, false);
    w.causal = choice_or(j, path, "mask", names::kAttentionMask, false);
    if (j.contains("comm_sms")) w.comm_sms = comm_sms(j["comm_sms"], join(path, "comm_sms"));
    if (j.contains("sustained")) w.sustained = boolean(j["sustained"], join(path, "sustained"));
    if (j.contains("measured_seconds")) {
      w.measured_seconds = non_negative(j["measured_seconds"], join(path, "measured_seconds"));
      if (!(w.measured_seconds > 0.0))
        fail(join(path, "measured_seconds"), "a measured kernel takes some time; must be > 0");
    }
    return w;
  }

  // SMs lent to communication: a whole count below any GPU's (the compute
  // model checks it against the GPU that runs the op).
  int comm_sms(const json& j, const std::string& path) const {
    const std::int64_t sms = integer(j, path);
    if (sms < 0 || sms > kMaxCommSms)
      fail(path, describe(j) + " is not allowed; must be 0 … " + std::to_string(kMaxCommSms));
    return static_cast<int>(sms);
  }

  void gemm_shape(const json& j, const std::string& path, ComputeWork& w) const {
    if (!j.is_array() || j.size() != 4) fail(path, "expected [m, n, k, batch], got " + describe(j));
    std::int64_t* fields[] = {&w.m, &w.n, &w.k, &w.batch};
    for (std::size_t i = 0; i < 4; ++i) {
      *fields[i] = integer(j[i], item(path, i));
      const std::int64_t least = i == 3 ? 1 : 0;
      if (*fields[i] < least)
        fail(item(path, i), describe(j[i]) + " is not allowed; must be >= " + std::to_string(least));
    }
  }

  CollectiveCall collective(const json& j, const std::string& path) const {
    CollectiveCall c;
    c.op = choice(required(j, path, "collective"), join(path, "collective"), names::kCollectives);
    c.group = index(required(j, path, "group"), join(path, "group"));
    c.bytes = bytes(j, path);
    c.dimension = choice_or(j, path, "dimension", names::kDimensions, CommDimension::data);
    return c;
  }

  PeerTransfer peer_transfer(const json& j, const std::string& path, bool send) const {
    PeerTransfer p;
    p.side = send ? PeerTransfer::Side::send : PeerTransfer::Side::receive;
    p.peer = index(required(j, path, "peer"), join(path, "peer"));
    p.bytes = bytes(j, path);
    p.dimension = choice_or(j, path, "dimension", names::kDimensions, CommDimension::pipeline);
    return p;
  }
};

}  // namespace

TraceFile parse_trace_json(const std::string& text, const std::string& file_label) {
  TraceFile out = TraceReader(file_label).read(parse_json(text, file_label));
  check_trace(out.trace, file_label);
  return out;
}

TraceFile read_trace_file(const std::string& path) {
  std::ifstream file(path);
  if (!file) throw ConfigError(SourceLocation{path, 0, 0}, "", "cannot read the trace file");
  check_file_size(path, kMaxTraceFileBytes, "trace");
  std::ostringstream text;
  text << file.rdbuf();
  return parse_trace_json(text.str(), path);
}

}  // namespace simctl
