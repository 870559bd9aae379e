#pragma once
// A study written on the command line: `simctl sweep CONFIG --axis
// FIELD=VALUES ...` varies a run config without a study file. Each --axis is
// one axis of the product (first slowest), VALUES a YAML list ("[1, 2, 4]",
// "[systems/dgx_a100.yaml, systems/dgx_h100.yaml]"). The axes get a study
// file's checks before any point runs, and an error names the --axis as
// typed. The study's text is an ordinary study file, so shards of it merge
// as any study's do.
#include <string>
#include <vector>

#include "sim/study/study_file.hpp"

namespace simctl {

// `given` holds each --axis as typed ("workload.micro_batch=[1, 2]").
// ConfigError (at "--axis ...") for one without `=`, a field the schema lacks,
// values that are no non-empty list or have the wrong unit, or a field given
// twice.
Study axis_study(const std::string& config_path, const std::vector<std::string>& given);

}  // namespace simctl
