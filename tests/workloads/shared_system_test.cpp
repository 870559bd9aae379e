// ScenarioOptions::system: many scenarios of one config built on one system
// (a plan search's), used only while no override reaches into the system.
#include <catch2/catch.hpp>

#include "sim/scenario/scenario.hpp"

using namespace simctl;

namespace {

const std::string kConfig = std::string(SIMCTL_SOURCE_DIR) + "/configs/dgx_a100x64_megatron_175b.yaml";

ScenarioOptions with_system(std::shared_ptr<const System> system, ConfigOverrides overrides = {}) {
  ScenarioOptions options;
  options.allow_out_of_memory = true;
  options.skip_trace_when_out_of_memory = true;
  options.system = std::move(system);
  options.overrides = std::move(overrides);
  return options;
}

double speed_of_gpu(const Scenario& s, std::size_t gpu) { return s.system.part(s.system.gpus()[gpu]).compute_speed; }

}  // namespace

TEST_CASE("a scenario takes the system it is given, as built, when overrides leave the system alone",
          "[scenario][search]") {
  const Scenario own = load_scenario(kConfig, with_system(nullptr));
  auto given = std::make_shared<System>(own.system);  // marked: its GPU 5 computes at 0.25
  given->set_compute_speed(given->gpus()[5], 0.25);
  const ConfigOverrides plan{{"workload.micro_batch", "2", {}}};
  const Scenario s = load_scenario(kConfig, with_system(given, plan));
  CHECK(speed_of_gpu(s, 5) == 0.25);
  CHECK(speed_of_gpu(own, 5) == 1.0);
  CHECK(s.system.gpus().size() == own.system.gpus().size());
  CHECK(s.workload.micro_batch == 2);
}

TEST_CASE("an override of the system or the stragglers builds the config's own system instead", "[scenario][search]") {
  const Scenario own = load_scenario(kConfig, with_system(nullptr));
  auto given = std::make_shared<System>(own.system);
  given->set_compute_speed(given->gpus()[5], 0.25);
  const Scenario renamed = load_scenario(kConfig, with_system(given, {{"system.name", "renamed", {}}}));
  CHECK(renamed.system.name() == "renamed");
  CHECK(speed_of_gpu(renamed, 5) == 1.0);
  const Scenario slowed =
      load_scenario(kConfig, with_system(given, {{"stragglers", "[{gpu: \"gpu:3\", compute_speed: 0.5}]", {}}}));
  CHECK(speed_of_gpu(slowed, 3) == 0.5);
  CHECK(speed_of_gpu(slowed, 5) == 1.0);
}
