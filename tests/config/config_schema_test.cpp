// The config schema: its data is complete, loaders validate against it, and
// a section or field missing from it is an error, not a silent acceptance.
#include "sim/config/config_schema.hpp"

#include <catch2/catch.hpp>
#include <stdexcept>

using namespace simctl;

namespace {

std::string config_error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const ConfigError& e) {
    return e.what();
  }
  return "";
}

ConfigSchema schema_of(const std::string& text) {
  return ConfigSchema::parse(ConfigNode::load_string(text, "schema.yaml"));
}

const char* kSmallSchema = R"(sections:
  pricing:
    title: Cost
    fields:
      - {name: gpu_hour_price, type: "number > 0", default: required, meaning: "price of a GPU hour"}
      - {name: currency, choices: [USD, EUR], default: USD, meaning: "label of prices"}
)";

}  // namespace

TEST_CASE("every field of every schema section has a type, a default and a meaning", "[config][schema]") {
  const ConfigSchema& schema = config_schema();
  REQUIRE(schema.sections().size() >= 30);
  for (const SchemaSection& s : schema.sections()) {
    INFO("section " << s.name);
    CHECK_FALSE(s.title.empty());
    REQUIRE_FALSE(s.fields.empty());
    CHECK(s.keys.size() == s.fields.size());
    for (const SchemaField& f : s.fields) {
      INFO("field " << f.name);
      CHECK_FALSE(f.name.empty());
      CHECK_FALSE(f.meaning.empty());
      CHECK_FALSE(f.default_value.empty());
      CHECK((!f.type.empty() || !f.choices.empty()));
    }
  }
}

TEST_CASE("the schema names the fields the issue found undocumented", "[config][schema]") {
  const ConfigSchema& schema = config_schema();
  auto has = [&](const char* section, const char* field) {
    const auto& keys = schema.section(section).keys;
    return std::find(keys.begin(), keys.end(), field) != keys.end();
  };
  for (const char* f : {"tensor", "pipeline", "schedule", "virtual_stages", "sequence", "expert", "order", "gpus"}) {
    CHECK(has("workload.parallel", f));
  }
  for (const char* f : {"activation_recompute", "dropout", "attention", "framework", "strategy"}) {
    CHECK(has("workload", f));
  }
  CHECK(has("pricing", "gpu_hour_price"));
  CHECK(has("power", "pue"));
  CHECK(has("trace_file", "totals"));
  CHECK(has("trace_file.totals", "model_flops"));
  CHECK(has("workload.model:cnn.layers[]:conv", "kernel"));
  CHECK(has("workload.model:cnn.layers[]:repeat", "layers"));
  const auto& schedule = schema.section("workload.parallel").fields[5];
  REQUIRE(schedule.name == "schedule");
  CHECK(schedule.choices == std::vector<std::string>{"gpipe", "1f1b", "interleaved"});
}

TEST_CASE("a section the schema lacks is a logic error naming the sections there are", "[config][schema]") {
  const ConfigSchema schema = schema_of(kSmallSchema);
  CHECK(&schema.section("pricing") == &schema.sections()[0]);
  CHECK_THROWS_MATCHES(schema.section("pricng"), std::logic_error,
                       Catch::Message("unknown schema section 'pricng'; the schema's sections are pricing"));
  CHECK_THROWS_AS(config_schema().section("workload.paralel"), std::logic_error);
}

TEST_CASE("a key outside the schema's section is rejected, listing the schema's fields", "[config][schema]") {
  const ConfigSchema schema = schema_of(kSmallSchema);
  const auto root = ConfigNode::load_string("pricing:\n  gpu_hour_price: 2\n  currncy: EUR\n", "run.yaml");
  const std::string msg = config_error_of([&] { expect_section(root.child("pricing"), "pricing", schema); });
  CHECK_THAT(msg, Catch::Contains("run.yaml:3:3"));
  CHECK_THAT(msg, Catch::Contains("pricing.currncy"));
  CHECK_THAT(msg, Catch::Contains(
                      "unknown field (did you mean `currency`?); valid fields here are gpu_hour_price or currency"));
  CHECK(config_error_of([&] { expect_section(root.child("pricing"), "pricing"); }).find("pricing.currncy") !=
        std::string::npos);
}

TEST_CASE("a field removed from the schema is no longer accepted", "[config][schema]") {
  const auto root = ConfigNode::load_string("pricing: {gpu_hour_price: 2, currency: EUR}\n", "run.yaml");
  CHECK_NOTHROW(expect_section(root.child("pricing"), "pricing", schema_of(kSmallSchema)));
  std::string without_currency = kSmallSchema;
  without_currency.erase(without_currency.find("      - {name: currency"));
  const std::string msg =
      config_error_of([&] { expect_section(root.child("pricing"), "pricing", schema_of(without_currency)); });
  CHECK_THAT(msg, Catch::Contains("pricing.currency"));
  CHECK_THAT(msg, Catch::Contains("valid fields here are gpu_hour_price"));
}

TEST_CASE("a malformed schema is refused where it is wrong", "[config][schema]") {
  CHECK_THAT(config_error_of([] {
               schema_of("sections:\n  s:\n    title: T\n    fields:\n      - {name: a, default: x, meaning: m}\n");
             }),
             Catch::Contains("give the field a `type` or its `choices`"));
  CHECK_THAT(config_error_of([] {
               schema_of("sections:\n  s:\n    title: T\n    fields:\n      - {name: a, type: t, default: x}\n");
             }),
             Catch::Contains("missing required field 'meaning'"));
  CHECK_THAT(config_error_of([] {
               schema_of(
                   "sections:\n  s:\n    title: T\n    fields:\n      - {name: a, type: t, default: x, meaning: m}\n"
                   "      - {name: a, type: t, default: x, meaning: m}\n");
             }),
             Catch::Contains("field 'a' is listed twice in section 's'"));
  CHECK_THAT(config_error_of([] { schema_of("sections:\n  s:\n    title: T\n    fields: []\n"); }),
             Catch::Contains("at least one field"));
}
