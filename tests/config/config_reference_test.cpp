// docs/config.md's field reference is generated from the schema the loaders
// validate with; these tests keep the committed block from drifting, and
// keep loaders from accepting keys the schema (so the docs) does not list.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "sim/config/data_root.hpp"
#include "sim/config/schema_markdown.hpp"

using namespace simctl;

namespace {

std::string read_text(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Every .cpp under the folders that hold config loaders.
std::vector<std::filesystem::path> loader_sources() {
  std::vector<std::filesystem::path> out;
  for (const char* dir : {"sim", "workloads"}) {
    for (const auto& e : std::filesystem::recursive_directory_iterator(std::filesystem::path(data_root()) / dir)) {
      if (e.path().extension() == ".cpp") out.push_back(e.path());
    }
  }
  return out;
}

}  // namespace

TEST_CASE("docs/config.md's field reference is the one the schema generates", "[config][schema][docs]") {
  const std::string doc = read_text(std::filesystem::path(data_root()) / "docs" / "config.md");
  const std::string expected = render_schema_markdown(config_schema());
  INFO(
      "docs/config.md is out of date with sim/config/config_schema.yaml; regenerate it with\n"
      "  build/sim/config/simctl-config-reference --update docs/config.md");
  CHECK(generated_block(doc) == expected);
}

TEST_CASE("the generated block is found and replaced between its markers", "[config][schema][docs]") {
  const std::string block = std::string(kGeneratedBegin) + "\nnew\n" + std::string(kGeneratedEnd);
  const std::string doc =
      "# Title\n\n" + std::string(kGeneratedBegin) + "\nold\n" + std::string(kGeneratedEnd) + "\ntail\n";
  const std::string updated = replace_generated_block(doc, block);
  CHECK(updated == "# Title\n\n" + block + "\ntail\n");
  CHECK(generated_block(updated) == block);
  CHECK_THROWS_AS(generated_block("# no markers\n"), std::invalid_argument);
  CHECK_THROWS_AS(generated_block(std::string(kGeneratedEnd) + "\n" + std::string(kGeneratedBegin)),
                  std::invalid_argument);
}

TEST_CASE("the reference renders each field's valid values, default and meaning", "[config][schema][docs]") {
  const std::string md = render_schema_markdown(config_schema());
  CHECK_THAT(md, Catch::Contains("### `workload.parallel`: "));
  CHECK_THAT(md, Catch::Contains("| `schedule` | one of `gpipe`, `1f1b`, `interleaved` | `1f1b` | pipeline schedule"));
  CHECK_THAT(md, Catch::Contains("| `dropout` | number in [0, 1) | 0 |"));
  CHECK_THAT(md, Catch::Contains("### `trace_file.totals`: "));
}

// Every mapping a loader checks goes through the schema: no loader under
// sim/ or workloads/ lists its keys inline (the schema file's own format,
// read by config_schema.cpp, is the one exception), and every section a
// loader names exists in the schema.
TEST_CASE("loaders take their accepted keys from schema sections that exist", "[config][schema]") {
  const std::regex inline_keys(R"(expect_keys\((?:[^;{]*,)?\s*\{)");
  const std::regex named(R"((?:expect_section\([^,;]+,\s*|schema_keys\()(?:std::string\()?"([^"]+)\")");
  std::set<std::string> sections;
  for (const auto& file : loader_sources()) {
    const std::string text = read_text(file);
    INFO(file.string());
    if (file.filename() != "config_schema.cpp") CHECK_FALSE(std::regex_search(text, inline_keys));
    for (std::sregex_iterator m(text.begin(), text.end(), named), end; m != end; ++m) sections.insert((*m)[1]);
  }
  CHECK(sections.size() >= 30);
  for (const std::string& name : sections) {
    INFO("section " << name);
    // "…layers[]:" + "max_pool"/"avg_pool" is completed at run time.
    if (name.back() == ':') {
      CHECK_NOTHROW(config_schema().section(name + "max_pool"));
      CHECK_NOTHROW(config_schema().section(name + "avg_pool"));
      continue;
    }
    CHECK_NOTHROW(config_schema().section(name));
  }
}
