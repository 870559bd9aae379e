#pragma once
// Shared by the libFuzzer harnesses (fuzz/*.cpp): a scratch folder where a
// fuzzed file sits beside links to the shipped configs (so its relative
// paths and imports resolve as they do for configs/*.yaml), and the rule
// every harness enforces: bad input may only ever end in a ConfigError.
// Anything else (another exception, a crash, a sanitizer report, a hang)
// is a bug libFuzzer reports.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "sim/config/config_error.hpp"
#include "sim/exec/executor.hpp"
#include "sim/report/step_report.hpp"
#include "sim/scenario/clock_overflow_error.hpp"
#include "sim/scenario/scenario.hpp"

namespace simctl::fuzz {

// A replay of more ops than this is skipped: a harness must keep to a few
// milliseconds per input to reach depth.
inline constexpr std::size_t kMaxReplayOps = 20'000;

// The scratch folder of this process, made on first use: links named
// systems/, workloads/ and traces/ to configs/'s, every shipped system file
// and run config linked at its top level (system files import each other by
// name), and an empty studies/ (a study's `base: ../x.yaml` then resolves).
inline const std::filesystem::path& scratch() {
  static const std::filesystem::path dir = [] {
    namespace fs = std::filesystem;
    const fs::path configs = fs::path(SIMCTL_SOURCE_DIR) / "configs";
    char name[] = "/tmp/simctl-fuzz-XXXXXX";
    if (mkdtemp(name) == nullptr) std::abort();
    const fs::path out(name);
    for (const char* sub : {"systems", "workloads", "traces"}) fs::create_directory_symlink(configs / sub, out / sub);
    for (const auto& item : fs::directory_iterator(configs / "systems")) {
      fs::create_symlink(item.path(), out / item.path().filename());
    }
    for (const auto& item : fs::directory_iterator(configs)) {  // run configs, for a study's `base: ../x.yaml`
      if (item.path().extension() == ".yaml") fs::create_symlink(item.path(), out / item.path().filename());
    }
    fs::create_directory(out / "studies");
    return out;
  }();
  return dir;
}

inline std::string write_scratch(const std::string& name, const std::uint8_t* data, std::size_t size) {
  const std::filesystem::path path = scratch() / name;
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  return path.string();
}

inline const Catalogues& catalogues() {
  static const Catalogues loaded = Catalogues::load();
  return loaded;
}

// Replays a loaded scenario and builds its report, as `simctl run` does,
// when its trace is small enough.
inline void replay_if_small(const Scenario& s) {
  if (s.trace.ranks.empty() || s.trace.op_count() > kMaxReplayOps) return;
  Executor executor(s.system, s.catalogue, s.trace, s.tuning, s.collectives);
  const ExecutionResult result = within_clock(s, "fuzzed input", [&executor] { return executor.run(); });
  (void)build_step_report(s.trace, result, s.system, s.catalogue, s.labels, {s.costs, s.rank_memory});
}

// Runs `body`; a ConfigError is the expected answer to bad input, anything
// else is reported as a bug with its message.
template <typename Body>
int expect_only_config_errors(Body&& body) {
  try {
    body();
  } catch (const ConfigError&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "not a ConfigError: %s\n", e.what());
    std::abort();
  }
  return 0;
}

// Loads a run config through load_scenario, as `simctl run` does, and
// replays it when small.
inline void load_and_replay(const std::string& run_config) {
  ScenarioOptions options;
  options.catalogues = &catalogues();
  replay_if_small(load_scenario(run_config, options));
}

// Writes the fuzzed bytes as `fuzzed_name` beside a fixed run config
// (`run_text`, which names that file), and loads and replays the run.
inline int load_fixed_run(const std::uint8_t* data, std::size_t size, const std::string& fuzzed_name,
                          std::string_view run_text) {
  write_scratch(fuzzed_name, data, size);
  const std::string run = write_scratch("run_" + fuzzed_name + ".yaml",
                                        reinterpret_cast<const std::uint8_t*>(run_text.data()), run_text.size());
  return expect_only_config_errors([&] { load_and_replay(run); });
}

}  // namespace simctl::fuzz
