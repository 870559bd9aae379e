#pragma once
// The prices and power figures a study falls back on when its run config has
// no `pricing:` or `power:` (models/devices/cost_defaults.yaml, each with
// its source), so every row of a sweep or search can be compared on cost
// and energy.
#include <map>
#include <string>

#include "sim/report/costs.hpp"

namespace simctl {

struct Scenario;

struct CostDefaults {
  std::string currency;
  std::map<std::string, double> gpu_hour_price;      // by GPU model id
  PowerSpec power;                                   // node_watts unused: see host_watts_per_gpu
  std::map<std::string, double> host_watts_per_gpu;  // by GPU model id

  static CostDefaults load_file(const std::string& path);
  static CostDefaults load();  // <data root>/models/devices/cost_defaults.yaml
};

// The scenario's own sections, with each missing one filled from `defaults`
// where every GPU of the job has a default (else left out). `*_from_defaults`
// say which were filled.
struct StudyCosts {
  CostSpec spec;
  bool pricing_from_defaults = false;
  bool power_from_defaults = false;
};

StudyCosts study_costs(const Scenario& scenario, const CostDefaults& defaults);

}  // namespace simctl
