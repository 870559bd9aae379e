#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "sim/report/step_report.hpp"

namespace simctl {

// The terminal table: every number carries its unit.
std::string render_text(const StepReport& report);

// The same results as JSON. Times are in milliseconds (fields end in _ms),
// rates in the unit their name gives. `schema_version` changes whenever a
// field is renamed or its meaning changes.
nlohmann::json render_json(const StepReport& report);

inline constexpr int kReportSchemaVersion = 1;

}  // namespace simctl
