#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "sim/report/step_report.hpp"

namespace simctl {

// The terminal table: every number carries its unit.
std::string render_text(const StepReport& report);

// The same results as JSON, documented field by field in docs/output.md and
// checked against docs/report.schema.json. Times are in milliseconds
// (fields end in _ms), other quantities in the unit their name gives.
// `schema_version` changes whenever a field is renamed or its meaning changes.
nlohmann::json render_json(const StepReport& report);

// Version 2: the breakdown became a partition into categories (compute split
// by bound and optimizer, exposed communication by parallel dimension,
// pipeline bubble, data loading, host copies, waiting), and links, tiers,
// devices, critical path, memory, cost and energy were added.
// Version 3: kernels at the launch floor left compute_memory_bound (and
// compute_bound) for their own category, compute_launch_bound; tokens_per_s
// and cost.per_million_tokens are null for models without tokens.
inline constexpr int kReportSchemaVersion = 3;

}  // namespace simctl
