#pragma once
// One point of a study or a plan search: a base run config with some fields
// overridden, loaded and (when it is valid and fits in memory) replayed
// exactly as `simctl run` replays it, reduced to the figures a study row
// shows. A point that cannot run is an outcome too, with its reason.
#include <array>
#include <limits>
#include <optional>
#include <string>

#include "sim/config/config_overrides.hpp"
#include "sim/report/categories.hpp"

namespace simctl {

struct Catalogues;

enum class PointStatus { ok, invalid, out_of_memory };

std::string_view to_string(PointStatus status);  // "ok", "invalid", "out_of_memory"

struct PointMetrics {
  int gpus = 0;
  int nodes = 0;
  double step_time_ms = 0.0;
  double samples_per_s = 0.0;
  std::optional<double> tokens_per_s;  // none for models without tokens
  double mfu = 0.0;                    // fraction of dense peak
  double model_tflops_per_gpu = 0.0;
  std::array<double, kCategoryCount> breakdown_ms{};  // mean over ranks, by Category
  double peak_memory_gib = 0.0;                       // the fullest rank's estimate
  double min_headroom_gib = 0.0;                      // the fullest rank's capacity minus its use
  std::string bottleneck;                             // the report's verdict, one line
  // Cost and energy (sim/report/costs.hpp); `*_source` says "config" when the
  // run config gave the section, "catalogue defaults" otherwise.
  std::string currency;
  double cost_per_step = 0.0;
  std::optional<double> cost_per_million_tokens;
  std::optional<double> owned_cost_per_million_tokens;  // a buyer's (pricing.owned)
  double energy_per_step_j = 0.0;                       // GPUs + nodes, times PUE
  std::optional<double> energy_per_million_tokens_j;
  double average_power_w = 0.0;
  std::string pricing_source;
  std::string power_source;
  // False when the replay was timed but not reported on (evaluate_point's
  // `report_up_to_ms`): only step_time_ms and the memory figures are set.
  bool reported = true;
};

struct PointOutcome {
  PointStatus status = PointStatus::ok;
  std::string reason;    // why it did not run (the loader's message); empty when ok
  PointMetrics metrics;  // filled when ok; memory figures also when out_of_memory
};

// Loads `config_path` with `overrides` and replays it. A ConfigError becomes
// an `invalid` outcome and an estimate over a GPU's capacity an
// `out_of_memory` one (not replayed); other exceptions propagate.
// `catalogues`, when given, are used instead of loading the data root's
// (ScenarioOptions::catalogues). A replay slower than `report_up_to_ms` is
// not reported on (a search that already knows N faster plans needs only
// its time; building the report is a fifth of a replay's cost).
PointOutcome evaluate_point(const std::string& config_path, const ConfigOverrides& overrides,
                            const Catalogues* catalogues = nullptr,
                            double report_up_to_ms = std::numeric_limits<double>::infinity());

}  // namespace simctl
