// The trace file format: generated traces survive a write and a read to the
// bit, and each kind of bad trace is one ConfigError naming the file, the
// field's path and what would be valid.
#include "workloads/trace_json.hpp"

#include <catch2/catch.hpp>

#include "sim/config/config_error.hpp"
#include "sim/scenario/scenario.hpp"
#include "trace_files.hpp"

using namespace simctl;
using namespace simctl::testing;

namespace {

void check_round_trip(const Trace& trace) {
  const std::string text = trace_to_json(trace, "round trip");
  const TraceFile back = parse_trace_json(text, "memory.json");
  require_same_trace(trace, back.trace);
  CHECK(back.description == "round trip");
  CHECK(trace_to_json(back.trace, "round trip") == text);
}

}  // namespace

TEST_CASE("a generated DDP trace survives a write and a read exactly", "[trace-file]") {
  const Scenario s = load_scenario(source_path("configs/dgx_h100_x8.yaml"));
  REQUIRE(s.trace.ranks.size() == 8);
  check_round_trip(s.trace);
}

TEST_CASE("a generated TP x PP x DP trace survives a write and a read exactly", "[trace-file]") {
  const std::string config =
      write_run_config("tp2_pp2_dp2.yaml", "dgx_h100.yaml",
                       "  model: gpt2-small\n  parallel: {tensor: 2, pipeline: 2, data: 2, sequence: true}\n"
                       "  micro_batch: 2\n  global_batch: 16\n  dropout: 0.1\n");
  const Scenario s = load_scenario(config);
  REQUIRE(s.trace.ranks.size() == 8);
  REQUIRE(s.trace.groups.size() > 2);
  check_round_trip(s.trace);
}

TEST_CASE("a trace whose host issues ops late keeps its issue time through a write and a read",
          "[trace-file][host_issue]") {
  const Scenario s = load_scenario(source_path("configs/reference/measured_small_gpt_h200x1.yaml"));
  REQUIRE(s.trace.host_issue_seconds_per_op == Approx(54e-6));
  check_round_trip(s.trace);
}

TEST_CASE("a TP-overlapped trace keeps which ops ride on their layer's host call through a write and a read",
          "[trace-file][host_issue]") {
  const std::string config =
      write_run_config("tp4_overlap.yaml", "dgx_h100.yaml",
                       "  model: gpt2-small\n  parallel: {tensor: 4, sequence: true, tp_comm_overlap: true}\n"
                       "  micro_batch: 1\n  global_batch: 1\n");
  const Scenario s = load_scenario(config);
  const auto& ops = s.trace.ops(0);
  REQUIRE(std::any_of(ops.begin(), ops.end(), [](const Op& op) { return !op.host_issued; }));
  check_round_trip(s.trace);
  CHECK(trace_to_json(s.trace, "").find("\"host_issued\":false") != std::string::npos);
}

TEST_CASE("awkward doubles print so that they parse back to the same bits", "[trace-file]") {
  Trace trace;
  trace.totals = StepTotals{0.1 + 0.2, 1.0 / 3.0, 5e-324, 1.7976931348623157e308};
  ComputeWork work{ComputeKind::gemm, DType::fp8, 2.0 / 3.0 * 1e15, 123456789.123456789, 3, 5, 7, 11};
  trace.add_rank({Op{"odd", OpPhase::other, Stream::compute, {}, work}});
  check_round_trip(trace);
}

namespace {

struct BadTrace {
  std::string fixture;  // tests/workloads/traces/<fixture>.json
  std::string field;    // the path the error names
  std::string advice;   // what would be valid
};

void check_bad_trace(const BadTrace& c) {
  const std::string file = source_path("tests/workloads/traces/" + c.fixture + ".json");
  INFO(c.fixture);
  try {
    read_trace_file(file);
    FAIL("accepted " << file);
  } catch (const ConfigError& e) {
    INFO(e.what());
    CHECK(e.where().file == file);
    CHECK(e.field() == c.field);
    CHECK_THAT(e.problem(), Catch::Contains(c.advice));
    CHECK(std::string(e.what()).find('\n') == std::string::npos);
  }
}

}  // namespace

TEST_CASE("the good fixture reads", "[trace-file]") {
  const TraceFile good = read_trace_file(source_path("tests/workloads/traces/good.json"));
  CHECK(good.trace.ranks.size() == 2);
  CHECK(good.trace.ops(0)[1].stream == Stream::communication);  // the default for a send
}

TEST_CASE("each kind of bad trace names its field and what is valid", "[trace-file][bad-input]") {
  const BadTrace cases[] = {
      {"unknown_kind", "ranks[1].ops[1].kind", "'convolution' is not an op kind; use compute, copy, host, collective"},
      {"later_dep", "ranks[0].ops[1].deps[0]",
       "op 2 comes later; an op may depend only on earlier ops of its rank (0..0)"},
      {"own_dep", "ranks[0].ops[1].deps[0]", "op 1 depends on itself"},
      {"missing_dep", "ranks[0].ops[2].deps[1]", "op 7 does not exist; an op may depend only on earlier ops"},
      {"group_out_of_range", "ranks[0].ops[2].group", "group 5 does not exist; the trace has groups 0..1"},
      {"rank_not_in_group", "ranks[0].ops[2].group",
       "rank 0 is not in group 1 (ranks 1); use a group that lists rank 0"},
      {"negative_bytes", "ranks[0].ops[1].bytes", "-4096 is not allowed; must be a finite number >= 0"},
      {"negative_flops", "ranks[1].ops[1].flops", "must be a finite number >= 0"},
      {"sustained_not_bool", "ranks[1].ops[1].sustained", "\"yes\" is not allowed; must be true or false"},
      {"host_issued_not_bool", "ranks[1].ops[1].host_issued", "0 is not allowed; must be true or false"},
      {"unmatched_send", "ranks[0].ops[1]",
       "rank 0 has 1 send to rank 1 but rank 1 has 0 recvs from rank 0; add a matching {\"kind\": \"recv\", "
       "\"peer\": 0} to rank 1"},
      {"collective_count_mismatch", "ranks[1].ops[3]",
       "rank 0 makes 1 collective call on group 0 but rank 1 makes 2; every member must make the same calls in the "
       "same order"},
      {"version_mismatch", "version", "trace format version 2 is not supported; this simctl reads version 1"},
      {"host_issue_negative", "host_issue_seconds_per_op", "-5e-05 is not allowed; must be a finite number >= 0"},
      {"host_issue_too_long", "host_issue_seconds_per_op", "2.5 is not allowed; at most 1 (a second per op)"},
  };
  for (const auto& c : cases) check_bad_trace(c);
}

TEST_CASE("malformed JSON names the line, the column and the byte", "[trace-file][bad-input]") {
  const std::string file = source_path("tests/workloads/traces/malformed.json");
  try {
    read_trace_file(file);
    FAIL("accepted malformed JSON");
  } catch (const ConfigError& e) {
    INFO(e.what());
    CHECK(e.where().file == file);
    CHECK(e.where().line == 27);
    CHECK_THAT(e.problem(), Catch::StartsWith("not valid JSON (byte "));
    CHECK_THAT(e.problem(), Catch::Contains("expected '}'"));
  }
}

TEST_CASE("input that is not a trace never crashes the reader", "[trace-file][bad-input]") {
  const char* texts[] = {
      "",
      "[]",
      "null",
      "{}",
      "{\"format\": 3}",
      "{\"format\": \"simctl-trace\", \"version\": 1.5}",
      "{\"format\": \"simctl-trace\", \"version\": 1, \"compute_dtype\": \"bf16\", \"totals\": "
      "{\"model_flops\": 1, \"tokens\": 1, \"samples\": 1, \"parameters\": 1}, \"groups\": [], "
      "\"ranks\": [{\"ops\": [{\"kind\": \"compute\", \"kernel\": \"gemm\", \"flops\": 1, "
      "\"bytes\": 1, \"gemm\": [1, 2]}]}]}",
      "{\"format\": \"simctl-trace\", \"version\": 1, \"compute_dtype\": \"bf16\", \"totals\": "
      "{\"model_flops\": 1, \"tokens\": 1, \"samples\": 1, \"parameters\": 1}, \"groups\": [[0, 0]], "
      "\"ranks\": [{\"ops\": []}]}",
      "\xff\xfe"};
  for (const char* text : texts) {
    INFO(text);
    CHECK_THROWS_AS(parse_trace_json(text, "bad.json"), ConfigError);
  }
}

// Found by fuzz_trace: a number past a double's range threw nlohmann's
// out_of_range, not a ConfigError.
TEST_CASE("a number too large for a double names its line", "[trace-file][bad-input]") {
  const std::string text =
      "{\"format\": \"simctl-trace\", \"version\": 1, \"compute_dtype\": \"bf16\",\n"
      " \"totals\": {\"model_flops\": 0.64926741e6446, \"tokens\": 1, \"samples\": 1, \"parameters\": 1},\n"
      " \"groups\": [], \"ranks\": [{\"ops\": []}]}";
  try {
    parse_trace_json(text, "big.json");
    FAIL("accepted a number past a double's range");
  } catch (const ConfigError& e) {
    INFO(e.what());
    CHECK(e.where().file == "big.json");
    CHECK(e.where().line == 2);
    CHECK_THAT(e.problem(), Catch::Contains("'0.64926741e6446' does not fit a double"));
  }
}
