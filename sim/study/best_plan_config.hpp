#pragma once
// `simctl search --write-best FILE`: a run config that runs the winning plan.
// It is the base config with its workload written inline (read from its
// file when the base names one) and the plan written over it, and every
// file the base names (the system file, node-template imports) given by a
// path relative to where the new file goes, so `simctl run FILE` loads the
// same system and replays the same step.
#include <string>

#include "sim/study/plan_space.hpp"

namespace simctl {

// The new config's text. `output_path` is where it will be written (paths
// are made relative to its folder).
std::string best_plan_config_text(const std::string& config_path, const Plan& plan, const std::string& output_path);

// Writes it; throws std::runtime_error when the file cannot be written.
void write_best_plan_config(const std::string& config_path, const Plan& plan, const std::string& output_path);

}  // namespace simctl
