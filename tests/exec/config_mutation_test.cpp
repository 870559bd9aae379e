// A mutation pass over every shipped run config (issue #37), configs/ and
// configs/reference/, some 950 mutants: each is loaded
// with its system and workload files written inline, then one field at a
// time is changed (a value swapped for a zero, a negative, a tiny or huge
// number, a word, an empty or wrong-typed value; a field removed or
// misspelt; a list element repeated), and the mutant is loaded and, when
// small, replayed as `simctl run` would. Every mutant must run or end in a
// ConfigError that names its file and its field: never another exception,
// and never an error a user cannot place. The mutants are drawn from a fixed
// seed per config, so a failure is reproducible by its printed YAML.
// (The libFuzzer harnesses in fuzz/ mutate bytes; this mutates fields.)
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <regex>
#include <string>
#include <vector>

#include "fuzz/fuzz_common.hpp"

using namespace simctl;

namespace {

namespace fs = std::filesystem;

// Run configs of hundreds to thousands of GPUs, as the fuzzers name them.
const std::regex kSlowConfig("x128|x192|x64|x32|x16|x2048|16k");

const char* const kValues[] = {"0",           "-1",   "1e-9", "1e308", "-1e308", ".nan",  ".inf", "abc",
                               "\"\"",        "1 ps", "null", "0.5",   "[]",     "{}",    "true", "1e-30 GB/s",
                               "99999999999", "1 B",  "8",    "3 us",  "[1, 2]", "{x: 1}"};

// A place in the tree: the node, and how its parent holds it.
struct Place {
  YAML::Node parent;
  std::string key;  // a mapping's key; empty for a list element
  YAML::Node node;
};

void collect(YAML::Node node, std::vector<Place>& out) {
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      out.push_back({node, it->first.as<std::string>(), it->second});
      collect(it->second, out);
    }
  } else if (node.IsSequence()) {
    for (std::size_t i = 0; i < node.size(); ++i) {
      out.push_back({node, "", node[i]});
      collect(node[i], out);
    }
  }
}

// Every `import:` below `node` made absolute (from `dir`, where the text
// that held it lives), so the mutant loads from the scratch folder.
void absolute_imports(YAML::Node node, const fs::path& dir) {
  if (node.IsSequence()) {
    for (YAML::Node child : node) absolute_imports(child, dir);
  } else if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      if (it->first.as<std::string>() == "import" && it->second.IsScalar()) {
        it->second = (dir / it->second.as<std::string>()).lexically_normal().string();
      } else {
        absolute_imports(it->second, dir);
      }
    }
  }
}

// The run config with its system and workload files written inline, so
// their fields are mutated too; a workload that names a trace keeps its file.
YAML::Node inlined(const fs::path& config) {
  YAML::Node root = YAML::LoadFile(config.string());
  if (root["system"] && root["system"].IsMap()) absolute_imports(root["system"], config.parent_path());
  for (const char* section : {"system", "workload"}) {
    if (!root[section] || !root[section].IsScalar()) continue;
    const fs::path file = config.parent_path() / root[section].as<std::string>();
    std::ifstream in(file);
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("trace") != std::string::npos) {
      root[section] = fs::absolute(file).lexically_normal().string();  // its trace path stays its own
      continue;
    }
    root[section] = YAML::Load(text)[section];
    absolute_imports(root[section], file.parent_path());
  }
  return root;
}

// A number in the scalar (its unit kept: "400 Gb/s" -> "4e-07 Gb/s") scaled
// by an extreme factor, so the value still parses and reaches the models.
std::string scaled(const std::string& scalar, std::mt19937& rng) {
  static const double kFactors[] = {0.0, -1.0, 1e-9, 1e-300, 1e9, 1e300};
  std::size_t end = 0;
  double number = 0.0;
  try {
    number = std::stod(scalar, &end);
  } catch (const std::exception&) {
    return "";
  }
  char text[64];
  std::snprintf(text, sizeof text, "%g", number * kFactors[rng() % std::size(kFactors)]);
  return text + scalar.substr(end);
}

// Applies one mutation, chosen by `rng`, to `root`; returns what it did.
std::string mutate(YAML::Node& root, std::mt19937& rng) {
  std::vector<Place> places;
  collect(root, places);
  Place& at = places[rng() % places.size()];
  const unsigned op = rng() % 10;
  if (op == 0 && !at.key.empty()) {
    at.parent.remove(at.key);
    return "removed '" + at.key + "'";
  }
  if (op == 1 && !at.key.empty()) {
    const YAML::Node value = at.node;
    at.parent.remove(at.key);
    at.parent[at.key + "x"] = value;
    return "renamed '" + at.key + "' to '" + at.key + "x'";
  }
  if (op == 2 && at.node.IsSequence() && at.node.size() > 0) {
    at.node.push_back(YAML::Clone(at.node[0]));
    return "repeated the first element of a list";
  }
  const std::string name = at.key.empty() ? std::string("a list element") : "'" + at.key + "'";
  if (op >= 6 && at.node.IsScalar()) {
    if (const std::string value = scaled(at.node.Scalar(), rng); !value.empty()) {
      at.node = value;
      return "set " + name + " to " + value;
    }
  }
  const char* value = kValues[rng() % std::size(kValues)];
  at.node = YAML::Load(value);
  return "set " + name + " to " + value;
}

// Every shipped run config: configs/ and the reference runs in
// configs/reference/.
std::vector<fs::path> shipped_run_configs() {
  std::vector<fs::path> out;
  for (const char* dir : {"configs", "configs/reference"}) {
    for (const auto& e : fs::directory_iterator(fs::path(SIMCTL_SOURCE_DIR) / dir)) {
      if (e.path().extension() == ".yaml") out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// Thousands of GPUs load in about a second, so they get fewer mutants; the
// reference runs, many alike, fewer than the configs users start from.
int mutants_for(const fs::path& config) {
  if (std::regex_search(config.filename().string(), kSlowConfig)) return 4;
  return config.parent_path().filename() == "reference" ? 8 : 24;
}

}  // namespace

// Otherwise every mutant would be refused for the inlining, and the pass
// would test nothing.
TEST_CASE("every shipped config, its system and workload written inline, still loads", "[config][mutation]") {
  for (const fs::path& config : shipped_run_configs()) {
    YAML::Emitter text;
    text << inlined(config);
    const std::string path =
        fuzz::write_scratch("inlined.yaml", reinterpret_cast<const std::uint8_t*>(text.c_str()), text.size());
    INFO(config.filename().string());
    CHECK_NOTHROW(load_scenario(path, ScenarioOptions{}));
  }
}

TEST_CASE("mutants of every shipped config run or fail with a ConfigError naming file and field",
          "[config][mutation][bad-input]") {
  // SIMCTL_MUTATION_SALT=S draws other mutants, to explore by hand; the
  // suite runs the fixed ones.
  const char* salt_env = std::getenv("SIMCTL_MUTATION_SALT");
  const std::string salt = salt_env ? salt_env : "";
  int mutants = 0, refused = 0;
  for (const fs::path& config : shipped_run_configs()) {
    std::mt19937 rng(static_cast<std::uint32_t>(std::hash<std::string>{}(config.filename().string() + salt)));
    for (int m = 0; m < mutants_for(config); ++m) {
      YAML::Node root = YAML::Clone(inlined(config));
      const std::string what = mutate(root, rng);
      YAML::Emitter text;
      text << root;
      const std::string path =
          fuzz::write_scratch("mutant.yaml", reinterpret_cast<const std::uint8_t*>(text.c_str()), text.size());
      INFO(config.filename().string() << ", mutant " << m << ": " << what << "\n" << text.c_str());
      ++mutants;
      try {
        fuzz::load_and_replay(path);
      } catch (const ConfigError& e) {
        ++refused;
        INFO(e.what());
        CHECK_FALSE(e.where().file.empty());
        CHECK_FALSE(e.field().empty());
      } catch (const std::exception& e) {
        FAIL_CHECK("not a ConfigError: " << e.what());
      }
    }
  }
  INFO(mutants << " mutants, " << refused << " refused");
  CHECK(mutants >= 900);
  CHECK(refused > mutants / 4);  // the mutations reach fields the loaders check
}
