// Hidden ([.]) helper: prints where rank 0's time goes by op kind, to compare
// per-layer times with published breakdowns. Run: test_plans "[.profile]".
#include <catch2/catch.hpp>
#include <cstdio>
#include <map>

#include "plan_run.hpp"

using namespace simctl;

TEST_CASE("profile rank 0 ops", "[.profile]") {
  const char* config = std::getenv("SIMCTL_PROFILE_CONFIG");
  if (!config) return;
  const auto run = testing::run_config(config);
  const auto& ops = run.scenario.trace.ops(0);
  std::map<std::string, double> by_name;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    std::string name = ops[i].name;
    // strip "mbN." and "layerN." so a layer's ops are summed over layers
    for (const char* p : {"mb", "c", "layer"}) {
      if (name.rfind(p, 0) == 0 && name.find('.') != std::string::npos &&
          std::isdigit(static_cast<unsigned char>(name[std::string(p).size()]))) {
        name = name.substr(name.find('.') + 1);
      }
    }
    const auto& t = run.result.timeline(0).ops[i];
    by_name[std::string(ops[i].stream == Stream::compute ? "C " : "X ") + name] += ps_to_seconds(t.end - t.start);
  }
  for (const auto& [name, s] : by_name) std::printf("%-50s %10.3f ms\n", name.c_str(), s * 1e3);
  std::printf("step %.3f s\n", run.step_s());
}
