// The Perfetto/Chrome trace (--trace FILE) of real runs, checked against the
// same run's CSV tables: a process per rank with its host and stream tracks,
// one complete event per op the rank ran, and a counter per busy link.
#include <catch2/catch.hpp>
#include <set>

#include "tests/report/report_outputs.hpp"

using nlohmann::json;
using namespace simctl::testing;

namespace {

// Thread ids render_trace gives the host side and each stream (docs/output.md).
const std::map<std::string, int> kThreadOfStream = {{"host", 0},     {"compute", 1},      {"communication", 2},
                                                    {"copy", 3},     {"loader", 4},       {"overlap", 5},
                                                    {"prefetch", 6}, {"overlap_send", 7}, {"data_parallel", 8}};
const std::map<int, std::string> kThreadNames = {{0, "host"},
                                                 {1, "compute stream"},
                                                 {2, "communication stream"},
                                                 {3, "copy stream"},
                                                 {4, "loader stream"},
                                                 {5, "overlap stream"},
                                                 {6, "prefetch stream"},
                                                 {7, "overlap send stream"},
                                                 {8, "data-parallel stream"}};

struct Counts {
  std::map<int, std::size_t> per_pid;
  std::map<std::pair<int, int>, std::size_t> per_thread;  // (pid, tid)
};

void check_trace(const RunFiles& run) {
  const json& trace = run.trace;
  REQUIRE(trace.at("traceEvents").is_array());
  CHECK(trace.at("displayTimeUnit") == "ms");
  const double step_ms = run.report.at("step_time_ms");
  CHECK(trace.at("otherData").at("step_time_ms").get<double>() == Approx(step_ms));
  const double step_us = step_ms * 1e3;

  const auto ranks = read_csv(run.csv / "ranks.csv");
  const auto ops = read_csv(run.csv / "ops.csv");
  const auto links = read_csv(run.csv / "links.csv");
  const int rank_count = run.report.at("gpus");
  REQUIRE(ranks.size() == static_cast<std::size_t>(rank_count));
  const int links_pid = rank_count + 1;

  // What the trace should hold, from the CSV tables.
  Counts expected;
  for (const CsvRow& op : ops) {
    const int pid = std::stoi(op.at("rank")) + 1;
    ++expected.per_pid[pid];
    ++expected.per_thread[{pid, kThreadOfStream.at(op.at("stream"))}];
  }
  std::map<std::string, double> busy_links;  // name -> busy fraction
  for (const CsvRow& l : links) {
    if (std::stod(l.at("busy_ms")) > 0) busy_links[l.at("name")] = std::stod(l.at("utilisation"));
  }
  REQUIRE_FALSE(busy_links.empty());

  Counts complete;
  std::map<int, std::string> process_names;
  std::set<std::pair<int, int>> named_threads;
  std::map<std::string, std::vector<json>> counters;
  for (const json& e : trace["traceEvents"]) {
    const std::string ph = e.at("ph");
    const int pid = e.at("pid"), tid = e.at("tid");
    if (ph == "M" && e.at("name") == "process_name") {
      process_names[pid] = e.at("args").at("name");
    } else if (ph == "M" && e.at("name") == "thread_name") {
      INFO("pid " << pid << " tid " << tid);
      REQUIRE(kThreadNames.count(tid));
      CHECK(e.at("args").at("name") == kThreadNames.at(tid));
      named_threads.insert({pid, tid});
    } else if (ph == "X") {
      ++complete.per_pid[pid];
      ++complete.per_thread[{pid, tid}];
      const double ts = e.at("ts"), dur = e.at("dur");
      CHECK(ts >= 0.0);
      CHECK(dur >= 0.0);
      CHECK(ts + dur <= step_us * (1 + 1e-9) + 1e-3);
      CHECK(e.at("args").at("op").is_number_integer());
      if (e.at("args").contains("ready_us")) {  // communication: waited for peers until ready
        CHECK(e["args"]["ready_us"].get<double>() >= ts - 1e-6);
        CHECK(e["args"]["ready_us"].get<double>() <= ts + dur + 1e-6);
      }
    } else if (ph == "C") {
      CHECK(pid == links_pid);
      counters[e.at("name")].push_back(e);
    }
  }

  // A process per rank naming its GPU, with host, compute, communication and copy tracks.
  for (int r = 0; r < rank_count; ++r) {
    const int pid = r + 1;
    INFO("rank " << r);
    REQUIRE(process_names.count(pid));
    CHECK_THAT(process_names[pid], Catch::StartsWith("rank " + std::to_string(r) + " (" + ranks[r].at("gpu") + ", "));
    for (int tid = 0; tid < 5; ++tid) CHECK(named_threads.count({pid, tid}));
  }
  REQUIRE(process_names.count(links_pid));
  CHECK_THAT(process_names[links_pid], Catch::StartsWith("links"));

  // One complete event per op, per rank and per stream.
  CHECK(complete.per_pid == expected.per_pid);
  CHECK(complete.per_thread == expected.per_thread);
  std::size_t total = 0;
  for (const auto& [pid, n] : complete.per_pid) total += n;
  CHECK(total == run.report.at("ops").get<std::size_t>());

  // One counter track per busy link and none for idle ones; it holds the
  // link's busy fraction from the start and drops to 0 at the step's end.
  std::set<std::string> counter_names, busy_names;
  for (const auto& [name, _] : counters) counter_names.insert(name);
  for (const auto& [name, _] : busy_links) busy_names.insert(name);
  CHECK(counter_names == busy_names);
  for (const auto& [name, events] : counters) {
    INFO(name);
    REQUIRE(events.size() >= 1);
    const double first = events.front().at("args").at("busy");
    CHECK(events.front().at("ts").get<double>() == 0.0);
    CHECK(first > 0.0);
    CHECK(first <= 1.0);
    if (busy_links.count(name)) CHECK(first == Approx(busy_links[name]).epsilon(1e-6));
  }
}

}  // namespace

TEST_CASE("the DGX H100 trace has every rank's tracks, one event per op and busy-link counters", "[report][trace]") {
  const RunFiles run = run_with_outputs("trace_dgx", "configs/dgx_h100_x8.yaml");
  check_trace(run);
}

TEST_CASE("the 32-rank pipeline's trace has every rank's tracks, ops and link counters", "[report][trace]") {
  const RunFiles run = run_with_outputs("trace_pp", "tests/report/configs/pp_4node.yaml");
  check_trace(run);
  // TP8 x PP4 over four nodes: tensor and pipeline communication on the
  // communication streams, and pipeline sends crossing the InfiniBand leaves.
  std::set<std::string> dimensions;
  for (const json& e : run.trace["traceEvents"]) {
    if (e["ph"] == "X" && e["tid"] == 2 && e["args"].contains("dimension")) dimensions.insert(e["args"]["dimension"]);
  }
  CHECK(dimensions.count("tensor"));
  CHECK(dimensions.count("pipeline"));
  bool leaf_counter = false;
  for (const json& e : run.trace["traceEvents"]) {
    if (e["ph"] == "C" && e["name"].get<std::string>().find("leaf") != std::string::npos) leaf_counter = true;
  }
  CHECK(leaf_counter);
}
