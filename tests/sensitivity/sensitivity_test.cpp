// The sensitivity suite: every parameter that should move the simulated step
// time is moved, one row of tests/sensitivity/sensitivity.yaml at a time, and
// the step must change in the stated direction by at least the stated amount
// (or, for a resource the run leaves idle, by at most it). A model that
// silently ignores a field (a bandwidth never read, a degree that changes
// nothing) fails here.
//
// A row overrides a run-config field through the sweep's own mechanism
// (ConfigOverrides, as `simctl sweep` applies them), or, when its field starts
// with `catalogue.`, a device catalogue figure written the same way into the
// catalogue's YAML before it is parsed (GPU peak rates, HBM and NIC
// bandwidths live there, not in run configs).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <sstream>

#include "models/devices/device_catalogue.hpp"
#include "sim/config/config_node.hpp"
#include "sim/config/config_overrides.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/study/point_outcome.hpp"

using namespace simctl;

namespace {

const std::string kTable = "tests/sensitivity/sensitivity.yaml";
constexpr std::string_view kCataloguePrefix = "catalogue.";

struct Row {
  std::string parameter;  // what is moved, for the reader
  std::string config;     // the base run config
  ConfigOverride change;  // field path and new value
  std::string expect;     // slower, faster or unchanged
  double percent = 0.0;   // at least this much (slower/faster), at most (unchanged)
  std::string known_bug;  // set: the row states what should hold but does not yet
};

std::vector<Row> read_table() {
  const ConfigNode root = ConfigNode::load_file(kTable);
  root.expect_keys({"rows"});
  std::vector<Row> rows;
  for (const ConfigNode& r : root.child("rows").elements()) {
    r.expect_keys({"parameter", "config", "field", "value", "expect", "percent", "known_bug"});
    const SourceLocation at = r.location();
    rows.push_back({r.string("parameter"), r.string("config"), ConfigOverride{r.string("field"), r.string("value"), at},
                    r.choice("expect", {"slower", "faster", "unchanged"}), r.number("percent"),
                    r.string_or("known_bug", "")});
  }
  return rows;
}

bool is_catalogue_field(const ConfigOverride& o) { return o.path.rfind(kCataloguePrefix, 0) == 0; }

// The shipped device catalogue with one figure replaced: each catalogue file
// is parsed as DeviceCatalogue::load parses it, after the override is written
// into the file that holds the override's section (gpus, nics, ...).
DeviceCatalogue catalogue_with(const ConfigOverride& change) {
  ConfigOverride inside = change;
  inside.path = change.path.substr(kCataloguePrefix.size());
  const std::string section = top_level_key(inside.path);
  std::vector<std::string> files;
  for (const auto& item : std::filesystem::directory_iterator(DeviceCatalogue::default_directory())) {
    if (item.path().extension() == ".yaml") files.push_back(item.path().string());
  }
  std::sort(files.begin(), files.end());
  DeviceCatalogue catalogue;
  bool applied = false;
  for (const auto& file : files) {
    const ConfigNode root = ConfigNode::load_file(file);
    if (root.has(section)) {
      apply_overrides(root.yaml(), "", {inside});
      applied = true;
    }
    catalogue.add(root);
  }
  if (!applied) throw std::runtime_error("no catalogue file has a section '" + section + "'");
  return catalogue;
}

double step_ms(const std::string& config, const ConfigOverrides& overrides, const Catalogues& catalogues) {
  const PointOutcome outcome = evaluate_point(config, overrides, &catalogues);
  INFO(config << ": " << outcome.reason);
  REQUIRE(outcome.status == PointStatus::ok);
  return outcome.metrics.step_time_ms;
}

// Replays every row whose known_bug mark is (or is not) set and checks it;
// returns how many rows it checked.
std::size_t check_rows(bool known_bugs) {
  const Catalogues shipped = Catalogues::load();
  std::map<std::string, double> base_ms;  // per base config, replayed once
  const bool print = std::getenv("SIMCTL_SENSITIVITY_PRINT") != nullptr;
  std::size_t checked = 0;
  for (const Row& row : read_table()) {
    if (row.known_bug.empty() == known_bugs) continue;
    ++checked;
    if (!base_ms.count(row.config)) base_ms[row.config] = step_ms(row.config, {}, shipped);
    double changed_ms = 0.0;
    if (is_catalogue_field(row.change)) {
      Catalogues edited = shipped;
      edited.devices = catalogue_with(row.change);
      changed_ms = step_ms(row.config, {}, edited);
    } else {
      changed_ms = step_ms(row.config, {row.change}, shipped);
    }
    const double change_percent = 100.0 * (changed_ms / base_ms[row.config] - 1.0);
    INFO(row.change.origin.file << ":" << row.change.origin.line << ": " << row.parameter << " (" << row.change.path
                                << " = " << row.change.value_yaml << ") on " << row.config << ": "
                                << base_ms[row.config] << " ms -> " << changed_ms << " ms (" << change_percent
                                << " %), expected " << row.expect << " by " << row.percent << " %"
                                << (known_bugs ? "; known bug: " + row.known_bug : std::string()));
    if (print) {
      std::cout << row.parameter << " | " << row.change.path << " = " << row.change.value_yaml << " | " << row.expect
                << " " << row.percent << " % | " << base_ms[row.config] << " -> " << changed_ms << " ms | "
                << change_percent << " %\n";
    }
    if (row.expect == "slower") CHECK(change_percent >= row.percent);
    if (row.expect == "faster") CHECK(change_percent <= -row.percent);
    if (row.expect == "unchanged") CHECK(std::abs(change_percent) <= row.percent);
  }
  return checked;
}

}  // namespace

TEST_CASE("every row of the sensitivity table moves the step as it says", "[sensitivity]") {
  CHECK(check_rows(false) >= 25);
}

// Passes while each known bug is still there: once a fix makes a marked row
// hold, this fails, asking for its known_bug mark to be removed.
TEST_CASE("rows marked known_bug still fail", "[sensitivity][!shouldfail]") { CHECK(check_rows(true) >= 1); }

TEST_CASE("a catalogue row's override reaches the parsed catalogue", "[sensitivity]") {
  const DeviceCatalogue edited = catalogue_with(
      ConfigOverride{"catalogue.gpus.h100-sxm.memory.bandwidth", "1 TB/s", SourceLocation{"test", 1, 1}});
  CHECK(edited.gpu("h100-sxm").memory_bandwidth.bytes_per_s == Approx(1e12));
  CHECK(edited.gpu("a100-sxm-80gb").memory_bandwidth.bytes_per_s ==
        Approx(DeviceCatalogue::load().gpu("a100-sxm-80gb").memory_bandwidth.bytes_per_s));
}
