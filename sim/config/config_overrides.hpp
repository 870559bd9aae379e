#pragma once
// Fields of a config replaced (or added) from outside the file: what a sweep
// axis or a plan search writes into its base config for one point. A
// override names its field by the path errors use ("workload.parallel.tensor",
// "system.nodes[0].count") and carries its value as YAML text, so a point is
// a plain value that threads can share and a CSV row can print.
//
// An error a loader raises on an overridden field (or below it) is blamed on
// where the value was written (`origin`, a study file's line), not on the
// base config, whose line no longer holds that value.
#include <yaml-cpp/yaml.h>

#include <string>
#include <string_view>
#include <vector>

#include "sim/config/config_error.hpp"

namespace simctl {

struct ConfigOverride {
  std::string path;        // dotted, with [i] for list elements
  std::string value_yaml;  // "8", "400 Gb/s", "{data: 2, tensor: 4}"
  SourceLocation origin;   // where the value was written
};

using ConfigOverrides = std::vector<ConfigOverride>;

// Writes every override whose path starts with `prefix` (a top-level key such
// as "system", or "" for the root) into `tree`, the YAML at that prefix.
// A path leads through mappings (one the base lacks starts empty) and
// existing list elements. Throws ConfigError at the override's origin when
// it runs into a value that is not a mapping or past a list's end.
void apply_overrides(YAML::Node tree, std::string_view prefix, const ConfigOverrides& overrides);

// The first top-level key of a path: "system" for "system.nodes[0].count".
std::string top_level_key(std::string_view path);

// Rethrows `error` located at the origin of the override it concerns (the
// field is the override's path or lies below it), or returns without
// throwing when it concerns none.
void blame_override(const ConfigError& error, const ConfigOverrides& overrides);

}  // namespace simctl
