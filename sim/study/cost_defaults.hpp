#pragma once
// A study row's pricing and power: the run config's own sections, or the
// catalogue's defaults (models/devices/cost_defaults.hpp), so every row of a
// sweep or search can be compared on cost and energy.
#include "models/devices/cost_defaults.hpp"
#include "sim/report/costs.hpp"

namespace simctl {

struct Scenario;

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
