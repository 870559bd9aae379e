#pragma once
// A study file: a base run config and the axes a sweep varies over it
// (docs/studies.md, "Study files and simctl sweep"). Reading one checks
// everything that can be checked without simulating: each axis names a
// config field the schema knows, each value has that field's unit, axes are
// not empty and zipped axes have equal lengths, so a bad study fails before
// any point runs.
#include <cstdint>
#include <string>
#include <vector>

#include "sim/config/config_error.hpp"

namespace simctl {

struct AxisValue {
  std::string text;       // the value's YAML, written compactly ("400 Gb/s", "{data: 2, tensor: 4}")
  SourceLocation origin;  // where the study file writes it
};

struct StudyAxis {
  std::string field;  // a config path: "workload.parallel.tensor", "system.nodes[0].count"
  std::vector<AxisValue> values;
};

// Axes that move together: one axis alone, or a `zip:` group whose axes
// have equal lengths and take their i-th values at once.
struct AxisGroup {
  std::vector<StudyAxis> axes;
  std::size_t size() const { return axes.front().values.size(); }
};

enum class StudyObjective {
  throughput,
  step_time,
  mfu,
  cost_per_million_tokens,
  energy_per_million_tokens,
  owned_cost_per_million_tokens
};

std::string_view to_string(StudyObjective objective);

struct Study {
  std::string file;         // the study file, as given
  std::string text;         // its contents: shards carry it so a merge can check they agree
  std::string title;        // `study:`
  std::string description;  // may be empty
  std::string base;         // `base:` as written
  std::string base_path;    // resolved against the study file's folder
  StudyObjective objective = StudyObjective::throughput;
  std::vector<AxisGroup> groups;  // product order: the first varies slowest
  SourceLocation axes_origin;     // where `axes:` is, for errors about the whole product

  // The axes in the order the outputs list them (groups flattened).
  std::vector<const StudyAxis*> axes() const;
};

// Reads and checks a study file. ConfigError (file:line:col, field, what is
// valid) for a malformed one, an unknown field path, a value of the wrong
// unit, an empty axis, zipped axes of unequal lengths, a field varied by two
// axes or a base config that does not exist.
Study load_study(const std::string& path);
// The same from text already read (`file_label` names it and anchors
// `base:`); `check_base` false skips the base file's existence (a merge
// needs only the axes).
Study parse_study(const std::string& text, const std::string& file_label, bool check_base);

// A hash of the study text (FNV-1a, 16 hex digits): shards of one study carry the same.
std::string study_fingerprint(const Study& study);

}  // namespace simctl
