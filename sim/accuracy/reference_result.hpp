#pragma once
// A reference run replayed: the simulated metric, its error against the
// measurement, and the breakdown category the simulated step spends most in.
#include <string>

#include "sim/accuracy/reference_runs.hpp"
#include "sim/report/categories.hpp"

namespace simctl {

struct ReferenceResult {
  int gpus = 0;
  double simulated = 0.0;       // in the run's metric's units
  double error = 0.0;           // simulated / measured - 1 (signed)
  Category dominant{};          // largest category of the mean rank's breakdown
  double dominant_share = 0.0;  // its share of the step, 0 ... 1
};

// Loads the run's config (under the data root), replays it rank by rank and
// judges it.
ReferenceResult simulate_reference_run(const ReferenceRun& run);

}  // namespace simctl
