#pragma once
// A scenario is what one config file names: a system and a workload, each
// inline or in a file of its own (so one system serves many workloads), plus
// the catalogues they are checked against. Loading it validates everything a
// run needs, so `simctl check` and `simctl run` fail on exactly the same input.
#include <string>

#include "models/devices/device_catalogue.hpp"
#include "models/network/collective.hpp"
#include "models/network/link_kinds.hpp"
#include "sim/report/step_report.hpp"
#include "sim/topology/system.hpp"
#include "workloads/trace.hpp"
#include "workloads/workload_config.hpp"

namespace simctl {

struct Scenario {
  DeviceCatalogue catalogue;
  LinkKindTable link_kinds;
  CollectiveTuning tuning;
  System system;
  WorkloadSpec workload;
  Trace trace;
  RunLabels labels;
};

// Throws ConfigError (file:line:col, field, what is valid) on any bad input.
Scenario load_scenario(const std::string& config_path);

}  // namespace simctl
