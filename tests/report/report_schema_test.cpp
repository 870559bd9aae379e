// The --json report of real runs against docs/report.schema.json, with a
// small validator for the subset of JSON Schema (draft 2020-12) the file
// uses: type, properties, required, additionalProperties, items, const.
#include <catch2/catch.hpp>
#include <set>

#include "sim/report/render.hpp"
#include "tests/report/report_outputs.hpp"

using nlohmann::json;
using namespace simctl::testing;

namespace {

const std::set<std::string> kKeywords = {
    "$schema", "title", "description", "type", "properties", "required", "additionalProperties", "items", "const"};

json load_schema() { return json::parse(read_text(source_path("docs/report.schema.json"))); }

bool has_type(const std::string& type, const json& value) {
  if (type == "object") return value.is_object();
  if (type == "array") return value.is_array();
  if (type == "string") return value.is_string();
  if (type == "integer") return value.is_number_integer();
  if (type == "number") return value.is_number();
  if (type == "boolean") return value.is_boolean();
  if (type == "null") return value.is_null();
  throw std::runtime_error("unknown type '" + type + "' in the schema");
}

// Appends one line per violation, each naming the JSON path ("$.per_rank[3].step_ms").
void validate(const json& schema, const json& value, const std::string& where, std::vector<std::string>& errors) {
  for (const auto& [keyword, _] : schema.items()) {
    if (!kKeywords.count(keyword)) errors.push_back(where + ": the schema uses unsupported keyword '" + keyword + "'");
  }
  if (schema.contains("type")) {
    const json types = schema["type"].is_array() ? schema["type"] : json::array({schema["type"]});
    bool ok = false;
    for (const auto& t : types) ok = ok || has_type(t.get<std::string>(), value);
    if (!ok) {
      errors.push_back(where + ": " + std::string(value.type_name()) + " where the schema wants " + types.dump());
      return;
    }
  }
  if (schema.contains("const") && value != schema["const"]) {
    errors.push_back(where + ": " + value.dump() + " where the schema wants " + schema["const"].dump());
  }
  if (value.is_object()) {
    const json properties = schema.value("properties", json::object());
    for (const auto& key : schema.value("required", json::array())) {
      if (!value.contains(key.get<std::string>()))
        errors.push_back(where + ": lacks required field '" + key.get<std::string>() + "'");
    }
    for (const auto& [key, item] : value.items()) {
      const std::string path = where + "." + key;
      if (properties.contains(key)) {
        validate(properties[key], item, path, errors);
      } else if (schema.value("additionalProperties", true) == false) {
        errors.push_back(path + ": not in the schema (document it in docs/output.md and docs/report.schema.json)");
      }
    }
  }
  if (value.is_array() && schema.contains("items")) {
    for (std::size_t i = 0; i < value.size(); ++i) {
      validate(schema["items"], value[i], where + "[" + std::to_string(i) + "]", errors);
    }
  }
}

std::vector<std::string> violations(const json& report) {
  std::vector<std::string> errors;
  validate(load_schema(), report, "$", errors);
  return errors;
}

std::string joined(const std::vector<std::string>& lines) {
  std::string out;
  for (const auto& l : lines) out += l + "\n";
  return out;
}

// Every object schema, with its path, for the checks on the schema itself.
void object_schemas(const json& schema, const std::string& where, std::vector<std::pair<std::string, json>>& out) {
  if (schema.contains("properties")) {
    out.emplace_back(where, schema);
    for (const auto& [key, item] : schema["properties"].items()) object_schemas(item, where + "." + key, out);
  }
  if (schema.contains("items")) object_schemas(schema["items"], where + "[]", out);
}

}  // namespace

TEST_CASE("docs/report.schema.json: every object is closed and requires all its fields", "[report][schema]") {
  const json schema = load_schema();
  CHECK(schema.at("$schema") == "https://json-schema.org/draft/2020-12/schema");
  CHECK(schema.at("properties").at("schema_version").at("const") == simctl::kReportSchemaVersion);
  std::vector<std::pair<std::string, json>> objects;
  object_schemas(schema, "$", objects);
  REQUIRE(objects.size() > 10);
  for (const auto& [where, object] : objects) {
    INFO(where);
    CHECK(object.value("additionalProperties", true) == false);
    std::set<std::string> properties, required;
    for (const auto& [key, _] : object.at("properties").items()) properties.insert(key);
    for (const auto& key : object.at("required")) required.insert(key.get<std::string>());
    CHECK(properties == required);
    for (const auto& [key, field] : object.at("properties").items()) {
      INFO(key);
      CHECK(field.contains("type"));
      CHECK_FALSE(field.value("description", std::string()).empty());
    }
  }
}

TEST_CASE("docs/output.md documents every field of the JSON schema", "[report][schema]") {
  const std::string doc = read_text(source_path("docs/output.md"));
  REQUIRE_FALSE(doc.empty());
  std::vector<std::pair<std::string, json>> objects;
  object_schemas(load_schema(), "$", objects);
  for (const auto& [where, object] : objects) {
    for (const auto& [key, _] : object.at("properties").items()) {
      INFO(where + "." + key);
      CHECK(doc.find("`" + key + "`") != std::string::npos);
    }
  }
}

TEST_CASE("the DGX H100 example's JSON report matches docs/report.schema.json", "[report][schema]") {
  const RunFiles run = run_with_outputs("schema_dgx", "configs/dgx_h100_x8.yaml");
  const auto errors = violations(run.report);
  INFO(joined(errors));
  CHECK(errors.empty());
  CHECK(run.report.at("per_rank").size() == run.report.at("gpus").get<std::size_t>());
}

TEST_CASE("the 32-rank pipeline's JSON report matches docs/report.schema.json", "[report][schema]") {
  const RunFiles run = run_with_outputs("schema_pp", "tests/report/configs/pp_4node.yaml");
  const auto errors = violations(run.report);
  INFO(joined(errors));
  CHECK(errors.empty());
  // This config sets pricing and power: cost and energy are objects, not null.
  CHECK(run.report.at("cost").is_object());
  CHECK(run.report.at("energy").is_object());
  CHECK(run.report.at("memory").size() == run.report.at("gpus").get<std::size_t>());
}

TEST_CASE("the schema check fails on a missing, an undocumented or a mistyped field", "[report][schema]") {
  const RunFiles run = run_with_outputs("schema_drift", "configs/dgx_h100_x8.yaml");
  REQUIRE(violations(run.report).empty());
  const auto fails_at = [&](json report, const std::string& path) {
    const auto errors = violations(report);
    INFO(joined(errors));
    REQUIRE(errors.size() == 1);
    CHECK_THAT(errors.front(), Catch::StartsWith(path));
  };
  json missing = run.report;
  missing.erase("flows");
  fails_at(missing, "$: lacks required field 'flows'");
  json nested_missing = run.report;
  nested_missing["per_rank"][3]["categories_ms"].erase("waiting");
  fails_at(nested_missing, "$.per_rank[3].categories_ms: lacks required field 'waiting'");
  json extra = run.report;
  extra["breakdown"]["recompute_ms"] = 1.0;
  fails_at(extra, "$.breakdown.recompute_ms: not in the schema");
  json mistyped = run.report;
  mistyped["busiest_links"][0]["bytes"] = "4 GB";
  fails_at(mistyped, "$.busiest_links[0].bytes: string");
  json fractional = run.report;
  fractional["gpus"] = 8.5;
  fails_at(fractional, "$.gpus: number");
  json version = run.report;
  version["schema_version"] = simctl::kReportSchemaVersion + 1;
  fails_at(version, "$.schema_version: ");
}

TEST_CASE("MLP and CNN runs report samples/s and no tokens/s, in JSON and in the terminal", "[report][schema]") {
  for (const char* config : {"configs/dgx_h100_x8_mlp_ddp.yaml", "configs/h100_x1_resnet50.yaml"}) {
    INFO(config);
    const RunFiles run = run_with_outputs("schema_no_tokens", config);
    const auto errors = violations(run.report);
    INFO(joined(errors));
    CHECK(errors.empty());
    CHECK(run.report.at("tokens_per_s").is_null());
    CHECK(run.report.at("samples_per_s").get<double>() > 0.0);
    const CommandResult text = run_simctl("run " + source_path(config));
    REQUIRE(text.exit_code == 0);
    CHECK_THAT(text.out, Catch::Contains("samples/s"));
    CHECK_THAT(text.out, !Catch::Contains("tokens/s"));
  }
  // (A transformer's tokens/s: tests/cli/run_test.cpp.)
}
