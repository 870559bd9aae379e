// --trace-ranks, --trace-window, --trace FILE.gz and --csv-gz: the selection
// parses as documented, a selected trace and ops.csv hold exactly the
// selected ranks' ops that overlap the window (checked against the same
// run's whole ops.csv), and gzipped outputs hold the same bytes as plain ones.
#include "sim/report/output_selection.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "sim/report/json_text.hpp"
#include "tests/gunzip.hpp"
#include "tests/report/report_outputs.hpp"

using nlohmann::json;
using namespace simctl;
using namespace simctl::testing;

namespace {

std::vector<CsvRow> read_csv_text(const std::string& text, const std::filesystem::path& scratch) {
  {
    std::ofstream out(scratch);
    out << text;
  }
  return read_csv(scratch);
}

TimePs ms_to_ps(const std::string& ms) { return static_cast<TimePs>(std::llround(std::stod(ms) * 1e9)); }

}  // namespace

TEST_CASE("a rank list selects the ranks it names, ranges and overlaps included", "[report][selection]") {
  OutputSelection s;
  CHECK(s.keeps_everything());
  s.keep_ranks("8-11, 2,10-12", 16);
  for (std::uint32_t r = 0; r < 16; ++r) CHECK(s.keeps_rank(r) == (r == 2 || (r >= 8 && r <= 12)));
  CHECK(s.kept_ranks(16) == std::vector<std::uint32_t>{2, 8, 9, 10, 11, 12});
  CHECK_FALSE(s.keeps_everything());
  CHECK(s.describe() == "ranks 8-11, 2,10-12");
}

TEST_CASE("a bad rank list is refused with what would be valid", "[report][selection]") {
  OutputSelection s;
  CHECK_THROWS_WITH(s.keep_ranks("16", 16), Catch::Contains("rank 16 is not in the run, which has 16 ranks (0-15)"));
  CHECK_THROWS_WITH(s.keep_ranks("3-1", 16), Catch::Contains("'3-1' runs backwards"));
  CHECK_THROWS_WITH(s.keep_ranks("0-3,,5", 16), Catch::Contains("'' is not a rank"));
  CHECK_THROWS_WITH(s.keep_ranks("x", 16), Catch::Contains("write ranks as 0-7,64"));
  CHECK_THROWS_WITH(s.keep_ranks("-1", 16), Catch::Contains("is not a rank"));
  CHECK(s.keeps_everything());  // a refused list leaves the selection as it was
}

TEST_CASE("a window keeps the ops that overlap it, a bare end taking the other's unit", "[report][selection]") {
  OutputSelection s;
  s.keep_window("0..250 ms");
  CHECK(s.from() == 0);
  CHECK(s.to() == 250'000'000'000);
  s.keep_window("1.2s..1400ms");
  CHECK(s.from() == 1'200'000'000'000);
  CHECK(s.to() == 1'400'000'000'000);
  CHECK(s.keeps_op(1'100'000'000'000, 1'200'000'000'000));  // ends as the window opens
  CHECK(s.keeps_op(1'300'000'000'000, 1'500'000'000'000));
  CHECK_FALSE(s.keeps_op(0, 1'199'999'999'999));
  CHECK_FALSE(s.keeps_op(1'400'000'000'001, 1'500'000'000'000));
  CHECK(s.describe() == "1.200 s..1.400 s");
  CHECK_THROWS_WITH(s.keep_window("1..2"), Catch::Contains("write T0..T1 with units"));
  CHECK_THROWS_WITH(s.keep_window("2s..1s"), Catch::Contains("ends before it starts"));
  CHECK_THROWS_WITH(s.keep_window("1s-2s"), Catch::Contains("has no '..'"));
  CHECK_THROWS_WITH(s.keep_window("-1s..2s"), Catch::Contains("is not a window"));
}

TEST_CASE("streamed JSON scalars are exact and parse back", "[report][selection]") {
  std::string out;
  for (TimePs t : {TimePs{0}, TimePs{1}, TimePs{1'500'000}, TimePs{2'805'554'049'346}, TimePs{-20}}) {
    out.clear();
    append_microseconds(out, t);
    INFO(out);
    CHECK(json::parse(out).get<double>() == Approx(static_cast<double>(t) / 1e6).epsilon(1e-15));
  }
  out.clear();
  append_microseconds(out, 2'805'554'049'346);
  CHECK(out == "2805554.049346");
  out.clear();
  append_microseconds(out, 1'500'000);
  CHECK(out == "1.5");
  out.clear();
  const std::string name = "a \"quoted\" \\ name\twith\ncontrol \x01 and UTF-8 \xc2\xb5s";
  append_json_string(out, name);
  CHECK(json::parse(out).get<std::string>() == name);
  out.clear();
  append_json_number(out, 0.1);
  CHECK(out == "0.1");
}

TEST_CASE("a selected, gzipped trace and ops.csv hold exactly the chosen ranks' ops in the window",
          "[report][selection]") {
  const RunFiles whole = run_with_outputs("selection_whole", "tests/report/configs/pp_4node.yaml");
  const double step_ms = whole.report.at("step_time_ms");
  // The middle fifth of the step, on one pipeline stage and a rank of the last.
  const std::string window = std::to_string(step_ms * 0.4) + "ms.." + std::to_string(step_ms * 0.6) + "ms";
  OutputSelection expected;
  expected.keep_ranks("8-15,31", 32);
  expected.keep_window(window);

  const TempDir dir("selection_part");
  const auto trace_gz = dir.path() / "trace.json.gz", csv = dir.path() / "csv";
  const CommandResult r =
      run_simctl("run " + source_path("tests/report/configs/pp_4node.yaml") + " --trace " + trace_gz.string() +
                 " --csv " + csv.string() + " --csv-gz --trace-ranks 8-15,31" + " --trace-window " + window);
  REQUIRE(r.exit_code == 0);

  // The whole run's ops.csv, filtered here, is what the selected outputs hold.
  std::multiset<std::pair<int, int>> wanted;  // (rank, op)
  for (const CsvRow& op : read_csv(whole.csv / "ops.csv")) {
    const int rank = std::stoi(op.at("rank"));
    if (expected.keeps_rank(rank) && expected.keeps_op(ms_to_ps(op.at("start_ms")), ms_to_ps(op.at("end_ms"))))
      wanted.insert({rank, std::stoi(op.at("op"))});
  }
  REQUIRE(wanted.size() > 100);
  REQUIRE(wanted.size() * 4 < whole.report.at("ops").get<std::size_t>());

  std::multiset<std::pair<int, int>> in_csv;
  for (const CsvRow& op : read_csv_text(gunzipped(csv / "ops.csv.gz"), dir.path() / "ops.csv"))
    in_csv.insert({std::stoi(op.at("rank")), std::stoi(op.at("op"))});
  CHECK(in_csv == wanted);
  // The other tables stay whole.
  CHECK(read_csv_text(gunzipped(csv / "ranks.csv.gz"), dir.path() / "ranks.csv").size() == 32);

  const json trace = json::parse(gunzipped(trace_gz));
  CHECK(trace.at("otherData").at("selection") == expected.describe());
  std::multiset<std::pair<int, int>> in_trace;
  std::set<int> processes;
  for (const json& e : trace.at("traceEvents")) {
    if (e.at("ph") == "X") in_trace.insert({e.at("pid").get<int>() - 1, e.at("args").at("op").get<int>()});
    if (e.at("ph") == "M" && e.at("name") == "process_name") processes.insert(e.at("pid").get<int>());
  }
  CHECK(in_trace == wanted);
  std::set<int> expected_processes{32 + 1};  // the link counters'
  for (std::uint32_t rank : expected.kept_ranks(32)) expected_processes.insert(static_cast<int>(rank) + 1);
  CHECK(processes == expected_processes);
}

TEST_CASE("a gzipped trace holds the plain trace's bytes", "[report][selection]") {
  const TempDir dir("selection_gzip");
  const auto plain = dir.path() / "trace.json", packed = dir.path() / "trace.json.gz";
  const std::string config = source_path("configs/dgx_h100_x8.yaml");
  REQUIRE(run_simctl("run " + config + " --trace " + plain.string()).exit_code == 0);
  REQUIRE(run_simctl("run " + config + " --trace " + packed.string()).exit_code == 0);
  const std::string text = read_text(plain);
  CHECK(std::filesystem::file_size(packed) * 4 < text.size());
  CHECK(gunzipped(packed) == text);
}

TEST_CASE("bad selection options are refused before the run, naming the option and what is valid",
          "[report][selection]") {
  const std::string run = "run " + source_path("configs/dgx_h100_x8.yaml") + " ";
  const struct {
    const char* options;
    const char* says;
  } cases[] = {
      {"--trace t.json --trace-ranks 8", "simctl run: --trace-ranks 8: rank 8 is not in the run, which has 8 ranks"},
      {"--trace t.json --trace-ranks 3-1", "--trace-ranks 3-1: '3-1' runs backwards"},
      {"--trace t.json --trace-window 1..2", "--trace-window 1..2: '1..2' is not a window of simulated time"},
      {"--trace t.json --trace-window 2ms..1ms", "ends before it starts"},
      {"--trace-ranks 0", "choose the ops of --trace and --csv; give one of those"},
      {"--json r.json --csv-gz", "--csv-gz gzips the tables of --csv DIR"},
  };
  for (const auto& c : cases) {
    INFO(c.options);
    const CommandResult r = run_simctl(run + c.options);
    CHECK(r.exit_code == 2);
    CHECK_THAT(r.err, Catch::Contains(c.says));
    CHECK(r.out.empty());  // refused before simulating
  }
}
